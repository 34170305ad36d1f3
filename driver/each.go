package driver

import (
	"cmp"
	"errors"
	"fmt"

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
// them. A backend that refuses the spec while another accepts it (the job
// backend runs one task with every param set) is left out, with a warning
// that says why; when every backend refuses it, the first one's errors are
// the error. The warnings are every backend's, each once.
func Each(req Request) ([]Named, diag.Diagnostics, error) {
	if req.Emit.Kind != "" {
		return nil, nil, UsageError{fmt.Errorf("--kind picks one backend's kind; give --backend with it, not %s", AllBackends)}
	}
	var out []Named
	var warnings, skipped diag.Diagnostics
	var first error
	for _, name := range Backends() {
		req.Backend = name
		o, err := Compile(req)
		warnings = append(warnings, o.Warnings...)
		var refused diag.Diagnostics
		switch {
		case errors.As(err, &refused):
			first = cmp.Or(first, err)
			for _, d := range refused {
				skipped = append(skipped, diag.Diagnostic{Pos: d.Pos, Field: d.Field, Severity: diag.Warning, Code: diag.BackendLeftOut,
					Message: fmt.Sprintf("%s: not emitted: %s", name, d.Message)})
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
	return out, append(warnings, silence(req.Compiler, skipped)...).Sorted(), nil
}
