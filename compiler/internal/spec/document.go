package spec

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/errors"
	"cuelang.org/go/cue/literal"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/source"
	"github.com/mlcube-compile/mlcube-compile/diag"
	"github.com/mlcube-compile/mlcube-compile/schema"
)

// document is one spec file, or part of one, checked against its
// schema. data holds only what the file says; value is data unified with
// the schema. Decoders read data: the schema sets no defaults, so the
// file's values are all there is, and CUE walks the file's own structs
// much faster than their unification with the definitions.
type document struct {
	file  string
	kind  schema.Kind
	data  cue.Value
	value cue.Value
	// written is where each field of the whole file is written.
	written *source.Positions
	// meant are the fields that the did-you-mean of a misspelt key
	// dropped before the schema saw the file names (dropStrayKeys): the
	// key stands for the field, which is not missing too.
	meant []string
	// usable says data and value hold what the schema accepts: the
	// file's own values, or, where the schema refused some, the rest of
	// them (salvage).
	usable bool
	// cut are the fields whose wrong values a usable platform file was
	// read without (salvage.go says why only a platform's).
	cut []string
}

// checkDocument unifies a parsed file with the definition of its kind and
// returns every schema violation.
func checkDocument(sc *schema.Context, f *ast.File, kind schema.Kind) (*document, diag.Diagnostics) {
	doc := newDocument(f, kind)
	var strays diag.Diagnostics
	if kind == schema.MLCube {
		strays = doc.dropStrayKeys(sc, f)
	}
	return doc, append(strays, doc.check(sc, f)...)
}

// newDocument is the file f, to be checked against kind, whole or in parts.
func newDocument(f *ast.File, kind schema.Kind) *document {
	return &document{file: f.Filename, kind: kind, written: source.NewPositions(f)}
}

// part is a document for part of the file of d, such as some of its
// steps, written as a file of the same kind.
func (d *document) part() *document {
	return &document{file: d.file, kind: d.kind, written: d.written}
}

// check unifies the document's own values, those of f, with its
// definition and returns every schema violation. Where there are some,
// the values the schema accepts are still read (salvage), and usable
// says whether there are any.
func (d *document) check(sc *schema.Context, f *ast.File) diag.Diagnostics {
	data := sc.CUE().BuildFile(f)
	if err := data.Err(); err != nil {
		return source.CueErrors(d.file, err, "")
	}
	if d.written.Root.File == "" {
		d.written.Root = source.PosOf(data.Pos())
	}
	d.data, d.value = data, data.Unify(sc.Def(d.kind))
	err := d.value.Validate(cue.Concrete(true))
	if err == nil {
		// A valid value lacks no required field: CUE would have said so.
		d.usable = true
		return nil
	}
	return d.refuse(sc, f, err)
}

// top is the document as a whole, where its fields' locations start.
func (d *document) top() diag.Loc { return diag.In(d.written) }

// at is the location of the field at names, one name a level.
func (d *document) at(names ...string) diag.Loc {
	loc := d.top()
	for _, n := range names {
		loc = loc.Field(n)
	}
	return loc
}

// locOf is the location of a CUE path, without the schema definition it
// started from.
func (d *document) locOf(path cue.Path) diag.Loc {
	loc := d.top()
	for _, s := range path.Selectors() {
		switch {
		case s.IsDefinition():
		case s.Type() == cue.IndexLabel:
			loc = loc.Index(s.Index())
		default:
			loc = loc.Field(s.Unquoted())
		}
	}
	return loc
}

func pathOf(sels ...string) cue.Path {
	out := make([]cue.Selector, len(sels))
	for i, s := range sels {
		out[i] = cue.Str(s)
	}
	return cue.MakePath(out...)
}

// schemaIssues gathers CUE's errors by field, in the order CUE gives
// them, and the paths of the values CUE calls incomplete or required:
// those a missing field leaves without a value. An empty disjunction is one
// issue, at the deepest field that went wrong, naming the forms that
// would have been accepted.
func (d *document) schemaIssues(sc *schema.Context, err error) ([]*schemaIssue, []cue.Path) {
	byField := map[string]*schemaIssue{}
	var order []string
	var incomplete []cue.Path
	for _, e := range errors.Errors(err) {
		format, args := e.Msg()
		if strings.Contains(format, "errors in empty disjunction") {
			continue
		}
		path := cue.MakePath(selectorsOf(e.Path())...)
		if strings.HasPrefix(format, "incomplete value") || strings.Contains(format, "required but not present") {
			incomplete = append(incomplete, path)
			continue
		}
		unknown := format == "field not allowed"
		if unknown {
			// Beside other errors, CUE refuses each field below an
			// unknown one rather than the unknown one itself.
			path = outermostUnknown(sc, d.kind, path)
		}
		at := d.locOf(path)
		field := at.Path()
		for _, p := range e.InputPositions() {
			if q := source.PosOf(p); q.File == d.file && !unknown {
				at = at.At(q)
				break
			}
		}
		en, ok := byField[field]
		if !ok {
			en = &schemaIssue{path: path, field: field, at: at}
			byField[field] = en
			order = append(order, field)
		}
		if unknown {
			en.unknown = true
			if !slices.Contains(en.msgs, "unknown field") {
				en.msgs = append(en.msgs, "unknown field")
				en.hint, en.meant = d.unknownFieldHint(sc, path)
			}
			continue
		}
		if strings.HasPrefix(format, "conflicting values") && len(args) >= 2 {
			want := d.otherSide(sc, path, args[:2])
			en.allowed = append(en.allowed, want)
			en.msgs = append(en.msgs, fmt.Sprintf("got %s, want %s", shown(d.data.LookupPath(path)), want))
			continue
		}
		en.msgs = append(en.msgs, friendly(sc, format, args))
	}
	var issues []*schemaIssue
	for _, field := range order {
		if !hasDeeper(field, order) {
			issues = append(issues, byField[field])
		}
	}
	return issues, incomplete
}

// issueDiagnostics are the diagnostics of one field's schema errors: one
// that names every form accepted when each error is a conflict, else one
// each but for the conflicts.
func (d *document) issueDiagnostics(en *schemaIssue) diag.Diagnostics {
	if len(en.msgs) > 1 && len(en.allowed) == len(en.msgs) {
		return diag.Diagnostics{diag.Errorf(diag.WrongValue, en.at, "got %s, want %s", shown(d.data.LookupPath(en.path)),
			strings.Join(en.allowed, " or "))}
	}
	var out diag.Diagnostics
	for _, m := range en.msgs {
		if len(en.allowed) > 0 && len(en.allowed) < len(en.msgs) &&
			slices.ContainsFunc(en.allowed, func(a string) bool { return strings.HasSuffix(m, ", want "+a) }) {
			// A branch of a disjunction of another kind (a pattern for
			// a number, a number for a string): the branch of the
			// value's own kind says what is wrong, once.
			continue
		}
		e := diag.Errorf(diag.WrongValue, en.at, "%s", m)
		if m == "unknown field" {
			e.Code = diag.UnknownField
			e = e.WithFix(en.hint)
		}
		out = append(out, e)
	}
	return out
}

// schemaIssue gathers the errors CUE reports for one field.
type schemaIssue struct {
	path cue.Path
	// field is path as diagnostics write it.
	field string
	at    diag.Loc
	// unknown says the schema does not know the field.
	unknown bool
	allowed []string
	msgs    []string
	// hint is the unknown field's, among msgs, and meant the field it
	// suggests.
	hint, meant string
}

// hasDeeper reports whether another error sits below field: a struct that
// failed every branch of a disjunction is best explained by its children.
func hasDeeper(field string, fields []string) bool {
	for _, f := range fields {
		if strings.HasPrefix(f, field+".") || strings.HasPrefix(f, field+"[") {
			return true
		}
	}
	return false
}

// selectorsOf reads the path of a CUE error: a label that is not an
// identifier comes quoted ("a.b", "0"), an index bare.
func selectorsOf(path []string) []cue.Selector {
	var out []cue.Selector
	for _, p := range path {
		if strings.HasPrefix(p, "#") {
			continue
		}
		if strings.HasPrefix(p, `"`) {
			if label, err := literal.Unquote(p); err == nil {
				out = append(out, cue.Str(label))
				continue
			}
		}
		if n, err := strconv.Atoi(p); err == nil && n >= 0 {
			out = append(out, cue.Index(n))
			continue
		}
		out = append(out, cue.Str(p))
	}
	return out
}

// checkRequired walks the unified value at loc and reports every
// required field the file leaves out that no round has reported: a field
// written with ! in the schema, or a regular one whose value the schema
// leaves incomplete. CUE reports these only when nothing else is wrong,
// and a user fixing a file wants all of its problems at once.
func (d *document) checkRequired(r *refusals, v cue.Value, loc diag.Loc) {
	if v.IncompleteKind() == cue.ListKind {
		for i := 0; ; i++ {
			item := loc.Index(i)
			if !item.Written() {
				return
			}
			if w := v.LookupPath(cue.MakePath(cue.Index(i))); w.Exists() {
				d.checkRequired(r, w, item)
			}
		}
	}
	it, err := v.Fields(cue.Optional(true))
	if err != nil {
		return
	}
	for it.Next() {
		sel := it.Selector()
		if !sel.IsString() {
			// A list's items, where CUE lists a value that failed as
			// a list: their own errors say what is wrong.
			continue
		}
		child := loc.Field(sel.Unquoted())
		present := child.Written()
		if !present && required(sel, it.Value()) {
			r.add(child.Path(), diag.Diagnostics{missingField(child, loc)})
			continue
		}
		if present && !r.under(child.Path()) {
			d.checkRequired(r, it.Value(), child)
		}
	}
}

// required reports whether the schema asks for the field sel, of value
// v: it is written with !, or it is a regular field without a value of
// its own.
func required(sel cue.Selector, v cue.Value) bool {
	switch sel.ConstraintType() {
	case cue.RequiredConstraint:
		return true
	case cue.OptionalConstraint:
		return false
	}
	return v.Validate(cue.Concrete(true)) != nil
}
