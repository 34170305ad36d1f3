package source

import (
	"unicode/utf8"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/token"
	yamlv3 "go.yaml.in/yaml/v3"
)

// fillPositions gives a position to every key and value of f that CUE's
// YAML decoder left without one. The decoder gives up on positions once
// a node's offset is before the last one it handed out, which happens
// after a single-pair mapping inside a flow sequence, such as
// `[a: 1, a: 2, {b, b}]`: every key after it had no position, so a
// duplicate key there was reported with no file, line or column. The
// positions come from a second parse of src with go-yaml's node API,
// walked beside f; where the two trees differ in shape (merge keys,
// aliases), the walk stops and the enclosing position stands.
func fillPositions(f *ast.File, src []byte) {
	if !missingPositions(f) {
		return // nothing to fill: no second parse (most files)
	}
	var doc yamlv3.Node
	if err := yamlv3.Unmarshal(src, &doc); err != nil || doc.Kind != yamlv3.DocumentNode || len(doc.Content) != 1 {
		return
	}
	file := token.NewFile(f.Filename, -1, len(src))
	file.SetLinesForContent(src)
	pf := &posFiller{file: file, src: src, lines: lineStarts(src)}
	pf.mapping(f.Decls, doc.Content[0])
}

type posFiller struct {
	file  *token.File
	src   []byte
	lines []int
}

// pos is the position of a node at line and column (1-based, counted in
// characters as go-yaml counts them).
func (pf *posFiller) pos(line, col int) token.Pos {
	if line < 1 || line > len(pf.lines) || col < 1 {
		return token.NoPos
	}
	off := pf.lines[line-1]
	for c := 1; c < col && off < len(pf.src) && pf.src[off] != '\n'; c++ {
		_, size := utf8.DecodeRune(pf.src[off:])
		off += size
	}
	return pf.file.Pos(off, token.NoRelPos)
}

func (pf *posFiller) mapping(decls []ast.Decl, n *yamlv3.Node) {
	if n.Kind != yamlv3.MappingNode {
		return
	}
	var fields []*ast.Field
	for _, d := range decls {
		if field, ok := d.(*ast.Field); ok {
			fields = append(fields, field)
		}
	}
	if len(fields)*2 != len(n.Content) {
		return
	}
	for i, field := range fields {
		key, value := n.Content[2*i], n.Content[2*i+1]
		if key.Tag == "!!merge" || key.Kind == yamlv3.AliasNode {
			return
		}
		if !field.Label.Pos().IsValid() {
			ast.SetPos(field.Label, pf.pos(key.Line, key.Column))
		}
		pf.value(field.Value, value)
	}
}

func (pf *posFiller) value(e ast.Expr, n *yamlv3.Node) {
	if n.Kind == yamlv3.AliasNode {
		return
	}
	if !e.Pos().IsValid() {
		ast.SetPos(e, pf.pos(n.Line, n.Column))
	}
	switch v := e.(type) {
	case *ast.StructLit:
		pf.mapping(v.Elts, n)
	case *ast.ListLit:
		if n.Kind != yamlv3.SequenceNode || len(v.Elts) != len(n.Content) {
			return
		}
		for i, el := range v.Elts {
			pf.value(el, n.Content[i])
		}
	}
}

// missingPositions reports whether some key or value that fillPositions
// visits (fields' labels and values, list elements, at any depth) has no
// position: only then is there anything for the second parse to fill.
func missingPositions(f *ast.File) bool {
	var missing func(e ast.Expr) bool
	fields := func(decls []ast.Decl) bool {
		for _, d := range decls {
			if field, ok := d.(*ast.Field); ok && (!field.Label.Pos().IsValid() || missing(field.Value)) {
				return true
			}
		}
		return false
	}
	missing = func(e ast.Expr) bool {
		if !e.Pos().IsValid() {
			return true
		}
		switch v := e.(type) {
		case *ast.StructLit:
			return fields(v.Elts)
		case *ast.ListLit:
			for _, el := range v.Elts {
				if missing(el) {
					return true
				}
			}
		}
		return false
	}
	return fields(f.Decls)
}

// lineStarts is the offset at which each line of src starts.
func lineStarts(src []byte) []int {
	out := []int{0}
	for i, b := range src {
		if b == '\n' {
			out = append(out, i+1)
		}
	}
	return out
}
