package spec

import (
	"strconv"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/errors"

	"github.com/mlcube-compile/mlcube-compile/schema"
)

// The schema refuses a key it does not know (a misspelt one); the rest of
// the file may still be read, so that the checks after the schema (names,
// cycles, images, params) report their problems in the same run. salvage
// drops from a copy of the file every unknown key and checks the copy
// again, until it holds, or the schema refuses something else
// (refusedPaths), or nothing is left to drop. The decoders read the copy:
// they see only values the schema accepts, as when the file is valid.

// salvageRounds bounds how often a copy is cut and checked again: a
// round can show unknown keys the round before hid.
const salvageRounds = 4

// salvage sets d.data and d.value to those of f without the fields its
// schema refuses (err says which), and reports whether such a copy holds.
func (d *document) salvage(sc *schema.Context, f *ast.File, err error) bool {
	for range salvageRounds {
		paths := refusedPaths(err)
		if len(paths) == 0 {
			return false
		}
		for _, p := range paths {
			if len(p) == 0 {
				return false // the file as a whole is refused
			}
			f = &ast.File{Filename: f.Filename, Decls: dropPath(f.Decls, p)}
		}
		data := sc.CUE().BuildFile(f)
		if data.Err() != nil {
			return false
		}
		value := data.Unify(sc.Def(d.kind))
		if err = value.Validate(cue.Concrete(true)); err == nil {
			d.data, d.value = data, value
			return true
		}
	}
	return false
}

// refusedPaths are the paths of the keys err refuses as unknown, which
// the decoders would not read anyway. Any other refusal refuses the
// salvage: leaving out a value the schema knows changes what the file
// means (a step without its task: runs the task of its name; a dask: step
// without its function is no container step; a step left out is one an
// after: names), so that the checks after it would report what the file
// does not say.
func refusedPaths(err error) [][]string {
	var out [][]string
	for _, e := range errors.Errors(err) {
		if format, _ := e.Msg(); format != "field not allowed" {
			return [][]string{nil}
		}
		out = append(out, valuePath(e.Path()))
	}
	return out
}

// valuePath is a CUE error's path without the definitions it passed
// through.
func valuePath(path []string) []string {
	var out []string
	for _, p := range path {
		if !strings.HasPrefix(p, "#") {
			out = append(out, p)
		}
	}
	return out
}

// dropPath is decls without the value at path, each mapping and list on
// the way copied: the file the copy was made from is left as it was.
func dropPath(decls []ast.Decl, path []string) []ast.Decl {
	out := make([]ast.Decl, 0, len(decls))
	for _, d := range decls {
		field, ok := d.(*ast.Field)
		if !ok || labelOf(field) != path[0] {
			out = append(out, d)
			continue
		}
		if len(path) == 1 {
			continue
		}
		copied := *field
		copied.Value = dropIn(field.Value, path[1:])
		out = append(out, &copied)
	}
	return out
}

// dropIn is the value v without the value at path below it.
func dropIn(v ast.Expr, path []string) ast.Expr {
	switch x := v.(type) {
	case *ast.StructLit:
		copied := *x
		copied.Elts = dropPath(x.Elts, path)
		return &copied
	case *ast.ListLit:
		copied := *x
		copied.Elts = nil
		for i, e := range x.Elts {
			switch {
			case strconv.Itoa(i) != path[0]:
				copied.Elts = append(copied.Elts, e)
			case len(path) > 1:
				copied.Elts = append(copied.Elts, dropIn(e, path[1:]))
			}
		}
		return &copied
	}
	return v
}

// labelOf is a field's name as CUE's error paths write it: quoted when
// it is not an identifier.
func labelOf(field *ast.Field) string {
	name, _, err := ast.LabelName(field.Label)
	if err != nil {
		return ""
	}
	return cue.Str(name).String()
}
