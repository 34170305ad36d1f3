package compiler

import (
	"strconv"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
)

// positions is where each field and list item of a spec file is written,
// by its path: a field at its key, a list item where it starts, as CUE
// reports them. CUE finds a field by scanning its mapping, so asking CUE
// for the position of every step of a large pipeline takes time that
// grows with the square of the steps; here each is one map lookup.
type positions struct {
	file    string
	written map[string]Pos
	// root is where CUE places the file as a whole.
	root Pos
}

func newPositions(f *ast.File) *positions {
	ps := &positions{file: f.Filename, written: map[string]Pos{}}
	ps.fields(f.Decls, "")
	return ps
}

func (ps *positions) fields(decls []ast.Decl, key string) {
	namedFields(decls, func(name string, field *ast.Field) {
		k := key + fieldKey(name)
		ps.written[k] = posOf(field.Pos())
		ps.value(field.Value, k)
	})
}

func (ps *positions) value(e ast.Expr, key string) {
	switch v := e.(type) {
	case *ast.StructLit:
		ps.fields(v.Elts, key)
	case *ast.ListLit:
		for i, el := range v.Elts {
			k := key + indexKey(i)
			ps.written[k] = posOf(el.Pos())
			ps.value(el, k)
		}
	}
}

// has reports whether the file writes the value at path.
func (ps *positions) has(path []cue.Selector) bool {
	_, ok := ps.written[pathKey(path)]
	return ok
}

// nearest returns where the value at path is written, or the nearest
// enclosing value that is written, or the file itself.
func (ps *positions) nearest(path []cue.Selector) Pos {
	for i := len(path); i > 0; i-- {
		if p, ok := ps.written[pathKey(path[:i])]; ok && p.File == ps.file {
			return p
		}
	}
	if ps.root.File == ps.file {
		return ps.root
	}
	return Pos{File: ps.file, Line: 1, Col: 1}
}

// pathKey, fieldKey and indexKey spell a path as a key of written.
func pathKey(path []cue.Selector) string {
	var b strings.Builder
	for _, s := range path {
		switch s.LabelType() {
		case cue.IndexLabel:
			b.WriteString(indexKey(s.Index()))
		case cue.StringLabel:
			b.WriteString(fieldKey(s.Unquoted()))
		default:
			b.WriteString("\x02" + s.String())
		}
	}
	return b.String()
}

func fieldKey(name string) string { return "\x00" + name }

func indexKey(i int) string { return "\x01" + strconv.Itoa(i) }
