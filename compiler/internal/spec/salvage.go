package spec

import (
	"slices"
	"strconv"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"

	"github.com/mlcube-compile/mlcube-compile/diag"
	"github.com/mlcube-compile/mlcube-compile/schema"
)

// A file the schema refuses is reported whole, in one run. CUE does not
// say everything at once: beside a wrong value it keeps quiet about some
// unknown keys (those of the file's top level), and it reports a
// required field that is missing only when nothing else is wrong. So the
// refusals are gathered in rounds: each round drops from a copy of the
// file every field the schema refused (a wrong value, an unknown key),
// checks the copy again and reports what that check finds that no round
// before said, until the copy holds or nothing is left to drop.
//
// The copy is also what the decoders read when only unknown keys were
// dropped (salvage), so that the checks after the schema (names, cycles,
// images, params) report their problems in the same run; they see only
// values the schema accepts, as when the file is valid. In a cube or a
// pipeline, a wrong value, or a required field that is missing, keeps
// them from running: leaving out a value the schema knows changes what
// the file means (a step without its task: runs the task of its name; a
// dask: step without its function is no container step; a step left out
// is one an after: names), so that they would report what the file does
// not say. A platform file's fields are settings, each optional or
// defaulted, that mean nothing to one another's shape: its copy without
// its wrong values is read too (document.cut names what was cut), and
// the compiler keeps, of the checks after the schema, those about the
// platform file that are neither about a cut field nor about a mapping
// that holds one (compiler.keepCut), so that a wrong value does not hide
// a bad label key or bucket name, and a cut claim name is no "no claim".

// salvageRounds bounds how often a copy is cut and checked again: a
// round can show refusals the round before hid.
const salvageRounds = 6

// refusals are the schema's findings in a file over the rounds.
type refusals struct {
	diags diag.Diagnostics
	// said holds the field paths that have a diagnostic.
	said map[string]bool
	// dropped holds the field paths cut from the copy: what is below
	// them, or missing there, is the dropped value's, already said.
	dropped []string
	// wrong holds those of dropped that were wrong values, not unknown
	// keys.
	wrong []string
}

// under reports whether field is one of the dropped fields or below
// one.
func (r *refusals) under(field string) bool {
	return slices.ContainsFunc(r.dropped, func(d string) bool { return within(field, d) })
}

// within reports whether field is top or a field below it.
func within(field, top string) bool {
	return field == top || strings.HasPrefix(field, top+".") || strings.HasPrefix(field, top+"[")
}

// add keeps the diagnostics of a field no round has reported yet.
func (r *refusals) add(field string, diags diag.Diagnostics) {
	if r.said[field] || r.under(field) {
		return
	}
	r.said[field] = true
	r.diags = append(r.diags, diags...)
}

// refuse reports every problem the schema finds in f, whose first check
// gave err, and sets d.usable, with d.data and d.value those of the copy
// of f without its unknown keys, when that copy holds.
func (d *document) refuse(sc *schema.Context, f *ast.File, err error) diag.Diagnostics {
	r := &refusals{said: map[string]bool{}}
	last := d.value
	for _, field := range d.meant {
		r.said[field] = true
	}
	for round := 0; ; round++ {
		issues, incomplete := d.schemaIssues(sc, err)
		for _, en := range issues {
			r.add(en.field, d.issueDiagnostics(en))
			if en.meant != "" {
				// The misspelt key's did-you-mean names the field
				// it stands for: that field is not missing too.
				r.said[d.locOf(parentOf(en.path)).Field(en.meant).Path()] = true
			}
		}
		for _, path := range incomplete {
			d.missing(r, path)
		}
		var cut []*schemaIssue
		for _, en := range issues {
			if len(en.path.Selectors()) == 0 {
				return r.diags // the file as a whole is refused
			}
			if !r.under(en.field) {
				cut = append(cut, en)
			}
		}
		if len(cut) == 0 || round == salvageRounds {
			break
		}
		f = d.dropIssues(r, f, cut)
		data := sc.CUE().BuildFile(f)
		if data.Err() != nil {
			break
		}
		value := data.Unify(sc.Def(d.kind))
		last = value
		if err = value.Validate(cue.Concrete(true)); err == nil {
			if len(r.wrong) == 0 || d.kind == schema.Platform {
				d.data, d.value, d.usable = data, value, true
			}
			d.cut = r.wrong
			break
		}
	}
	// The file as written, and the last copy: a value that failed
	// every form it may take (a number or a mapping) shows what it lacks
	// only once its wrong fields are cut.
	d.checkRequired(r, d.value, d.top())
	d.checkRequired(r, last, d.top())
	return r.diags
}

// dropIssues is f without the fields of cut, each noted in r as dropped,
// and as wrong where it is a wrong value, not an unknown key.
func (d *document) dropIssues(r *refusals, f *ast.File, cut []*schemaIssue) *ast.File {
	for _, en := range cut {
		path := wholeList(en.path)
		f = &ast.File{Filename: f.Filename, Decls: dropPath(f.Decls, cutPath(path))}
		r.dropped = append(r.dropped, d.locOf(path).Path())
		if !en.unknown {
			r.wrong = append(r.wrong, d.locOf(path).Path())
		}
	}
	return f
}

// missing reports the field a value CUE calls incomplete lacks: the first
// field on path that the file does not write (a file's values are all
// concrete, so a value is incomplete only where the schema's own stands).
func (d *document) missing(r *refusals, path cue.Path) {
	loc := d.top()
	for _, s := range path.Selectors() {
		parent := loc
		switch {
		case s.IsDefinition():
			continue
		case s.Type() == cue.IndexLabel:
			loc = loc.Index(s.Index())
		default:
			loc = loc.Field(s.Unquoted())
		}
		if !loc.Written() {
			r.add(loc.Path(), diag.Diagnostics{missingField(loc, parent)})
			return
		}
	}
}

// missingField is the error for the field at loc, which the mapping at
// parent lacks: at the mapping's position, the field path naming the
// missing field.
func missingField(loc, parent diag.Loc) diag.Diagnostic {
	return diag.Errorf(diag.MissingField, loc.At(parent.Pos()), "missing required field")
}

// parentOf is the path of the mapping or list that holds path.
func parentOf(path cue.Path) cue.Path {
	sels := path.Selectors()
	return cue.MakePath(sels[:max(len(sels)-1, 0)]...)
}

// wholeList is path, or where it names an item of a list, the list: an
// item left out would move those after it, and the next round would
// report them at another's place.
func wholeList(path cue.Path) cue.Path {
	sels := path.Selectors()
	for len(sels) > 1 && sels[len(sels)-1].Type() == cue.IndexLabel {
		sels = sels[:len(sels)-1]
	}
	return cue.MakePath(sels...)
}

// cutPath is a path as dropPath reads it: each label as CUE's error
// paths write it, quoted when it is not an identifier.
func cutPath(path cue.Path) []string {
	var out []string
	for _, s := range path.Selectors() {
		switch {
		case s.IsDefinition():
		case s.Type() == cue.IndexLabel:
			out = append(out, strconv.Itoa(s.Index()))
		default:
			out = append(out, cue.Str(s.Unquoted()).String())
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
