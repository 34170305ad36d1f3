package driver

import (
	"cmp"
	"errors"
	"fmt"

	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/compiler"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// AllBackends is the --backend value that compiles for every backend at
// once, one output each.
const AllBackends = "all"

// Named is one backend's output.
type Named struct {
	Backend string
	Output
}

// Each compiles the request for every backend, in the order help lists
// them. A backend that does not run pipelines of the spec's shape (the job
// backend runs one container step with every param set) is left out, with
// a warning that says why; any other refusal (a mistake in the spec, an
// object too large for the cluster) is the error, as a compile for that
// backend alone would report it. The warnings are every backend's, each
// once.
func Each(req Request) ([]Named, diag.Diagnostics, error) {
	if req.Emit.Kind != "" {
		return nil, nil, UsageError{fmt.Errorf("--kind picks one backend's kind; give --backend with "+
			"it, not %s", AllBackends)}
	}
	var out []Named
	var warnings, skipped diag.Diagnostics
	var first error
	req.everyBackend = true
	if req.Workspace == nil {
		req.Workspace = compiler.Load(req.Compiler) // every backend's compile reads the files once
	}
	for _, name := range Backends() {
		req.Backend = name
		o, err := Compile(req)
		warnings = append(warnings, o.Warnings...)
		var shape shapeError
		if err != nil && !errors.As(err, &shape) {
			if not := notAccepted(req); len(not) > 0 {
				err = shapeError{refused: not, shape: not}
			}
		}
		switch {
		case errors.As(err, &shape):
			first = cmp.Or(first, err)
			for _, d := range shape.shape {
				skipped = append(skipped,
					diag.Diagnostic{Pos: d.Pos, Flag: d.Flag, Field: d.Field, Path: d.Path, Severity: diag.Warning,
						Code: diag.BackendLeftOut, Engine: name, Message: "not emitted: " + d.Message})
			}
		case err != nil:
			return nil, warnings.Sorted(), err
		default:
			out = append(out, Named{Backend: name, Output: o})
		}
	}
	if len(out) == 0 {
		return nil, warnings.Sorted(), first
	}
	left := req.Workspace.Silence(skipped)
	return out, append(warnings, left...).Sorted(), nil
}

// notAccepted are the refusals of req's engine of the pipeline compiled
// as the specs write it, when its kind needs every param's value at
// compile time: an engine that does not run pipelines of its shape (a Job
// runs one step) is left out, not held to values it would never use.
func notAccepted(req Request) diag.Diagnostics {
	e, ok := engine(req.Backend)
	if !ok || kindOf(e, req.Emit.Kind).Values == "" {
		return nil
	}
	opts := req.Compiler
	opts.NeedValues = ""
	p, diags := req.Workspace.For(opts).Compile()
	if diags.HasErrors() {
		return nil
	}
	return emit.Accepts(e, p, req.Emit.Kind)
}
