package spec

import (
	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/source"
	"github.com/mlcube-compile/mlcube-compile/schema"
)

// stepValue is one step of a pipeline file, as the file writes it.
type stepValue struct {
	name string
	data cue.Value
}

// stepBatch is how many steps are checked as one CUE value. CUE
// evaluates a mapping in time that grows with the square of its fields,
// and each evaluation has a cost of its own; batches keep both small.
const stepBatch = 64

// checkPipeline checks a pipeline file against its schema: the file with
// its steps left empty, then its steps stepBatch at a time, each batch
// written as a pipeline file of those steps alone. A pipeline of
// thousands of steps is never one CUE value, and every problem of every
// step is still reported at the path and position that one unification
// of the whole file gives.
func (l *loader) checkPipeline(f *ast.File) (*document, []stepValue, bool) {
	stepsField, fields, ok := stepsOf(f)
	if !ok {
		return l.checkPipelineWhole(f)
	}
	doc := newDocument(f, schema.Pipeline)
	l.add(doc.check(l.sc, withSteps(f, stepsField, nil)))
	valid := doc.usable
	var steps []stepValue
	for start := 0; start < len(fields); start += stepBatch {
		batch := fields[start:min(start+stepBatch, len(fields))]
		part := doc.part()
		l.add(part.check(l.sc, onlySteps(f, stepsField, batch)))
		valid = valid && part.usable
		forFields(part.data.LookupPath(pathOf("steps")), func(name string, v cue.Value) {
			steps = append(steps, stepValue{name, v})
		})
	}
	return doc, steps, valid
}

// checkPipelineWhole checks a pipeline file whose steps: is not a mapping
// of named steps, which its schema refuses, as one value.
func (l *loader) checkPipelineWhole(f *ast.File) (*document, []stepValue, bool) {
	doc, diags := checkDocument(l.sc, f, schema.Pipeline)
	l.add(diags)
	ok := doc.usable
	var steps []stepValue
	if ok {
		forFields(doc.data.LookupPath(pathOf("steps")), func(name string, v cue.Value) {
			steps = append(steps, stepValue{name, v})
		})
	}
	return doc, steps, ok
}

// stepsOf finds the top-level steps: field and the fields of its
// mapping. ok is false when steps: is missing or is not a mapping whose
// keys all have names.
func stepsOf(f *ast.File) (*ast.Field, []*ast.Field, bool) {
	var steps *ast.Field
	source.NamedFields(f.Decls, func(name string, field *ast.Field) {
		if name == "steps" {
			steps = field
		}
	})
	if steps == nil {
		return nil, nil, false
	}
	lit, ok := steps.Value.(*ast.StructLit)
	if !ok {
		return nil, nil, false
	}
	fields := make([]*ast.Field, 0, len(lit.Elts))
	for _, d := range lit.Elts {
		field, ok := d.(*ast.Field)
		if !ok {
			return nil, nil, false
		}
		if _, _, err := ast.LabelName(field.Label); err != nil {
			return nil, nil, false
		}
		fields = append(fields, field)
	}
	return steps, fields, true
}

// withSteps is f with the mapping of its steps: field holding only
// fields; f itself is not changed.
func withSteps(f *ast.File, steps *ast.Field, fields []*ast.Field) *ast.File {
	out := *f
	out.Decls = make([]ast.Decl, len(f.Decls))
	for i, d := range f.Decls {
		if d == steps {
			d = stepsWith(steps, fields)
		}
		out.Decls[i] = d
	}
	return &out
}

// onlySteps is a file with f's name that holds a steps: field of fields.
func onlySteps(f *ast.File, steps *ast.Field, fields []*ast.Field) *ast.File {
	return &ast.File{Filename: f.Filename, Decls: []ast.Decl{stepsWith(steps, fields)}}
}

// stepsWith is a copy of the steps: field whose mapping holds fields.
func stepsWith(steps *ast.Field, fields []*ast.Field) *ast.Field {
	lit := &ast.StructLit{Lbrace: steps.Value.Pos()}
	for _, field := range fields {
		lit.Elts = append(lit.Elts, field)
	}
	out := *steps
	out.Value = lit
	return &out
}
