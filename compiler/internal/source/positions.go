package source

import (
	"strconv"
	"strings"

	"cuelang.org/go/cue/ast"

	"github.com/mlcube-compile/mlcube-compile/diag"
)

// Positions is where each field and list item of a spec file is written,
// by its path: a field at its key, a list item where it starts, as CUE
// reports them. CUE finds a field by scanning its mapping, so asking CUE
// for the position of every step of a large pipeline takes time that
// grows with the square of the steps; here each is one map lookup.
type Positions struct {
	file    string
	written map[string]diag.Pos
	// Root is where CUE places the file as a whole, once it has.
	Root diag.Pos
}

func NewPositions(f *ast.File) *Positions {
	ps := &Positions{file: f.Filename, written: map[string]diag.Pos{}}
	ps.fields(f.Decls, "")
	return ps
}

func (ps *Positions) fields(decls []ast.Decl, key string) {
	NamedFields(decls, func(name string, field *ast.Field) {
		k := key + fieldKey(name)
		ps.written[k] = PosOf(field.Pos())
		ps.value(field.Value, k)
	})
}

func (ps *Positions) value(e ast.Expr, key string) {
	switch v := e.(type) {
	case *ast.StructLit:
		ps.fields(v.Elts, key)
	case *ast.ListLit:
		for i, el := range v.Elts {
			k := key + indexKey(i)
			ps.written[k] = PosOf(el.Pos())
			ps.value(el, k)
		}
	}
}

// Find returns where the value at path is written, or the nearest
// enclosing value that is written, or the file itself; written says
// whether the value itself is.
func (ps *Positions) Find(path []diag.Elem) (pos diag.Pos, written bool) {
	for i := len(path); i > 0; i-- {
		p, ok := ps.written[pathKey(path[:i])]
		if i == len(path) {
			written = ok
		}
		if ok && p.File == ps.file {
			return p, written
		}
	}
	if ps.Root.File == ps.file {
		return ps.Root, written
	}
	return diag.Pos{File: ps.file, Line: 1, Col: 1}, written
}

// pathKey, fieldKey and indexKey spell a path as a key of written.
func pathKey(path []diag.Elem) string {
	var b strings.Builder
	for _, e := range path {
		if e.Item {
			b.WriteString(indexKey(e.Index))
		} else {
			b.WriteString(fieldKey(e.Name))
		}
	}
	return b.String()
}

func fieldKey(name string) string { return "\x00" + name }

func indexKey(i int) string { return "\x01" + strconv.Itoa(i) }
