package driver

import (
	"fmt"
	"strings"

	"github.com/mlcube-compile/mlcube-compile/compiler"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// UsageError is a request that cannot be made, whatever the specs say:
// an unknown backend or kind, flags that do not go together.
type UsageError struct{ Err error }

func (e UsageError) Error() string { return e.Err.Error() }
func (e UsageError) Unwrap() error { return e.Err }

// shapeError is a backend's refusal of a pipeline of a shape it does not
// run (its Accepts refuses it: the job engine runs one container step
// with every param set), not a mistake in the spec: --backend all leaves
// that backend out with a warning that says shape. It unwraps to the
// refusals' diag.Diagnostics, which a compile for that backend alone
// reports: shape's, unless the backend found another fault first.
type shapeError struct{ refused, shape diag.Diagnostics }

func (e shapeError) Error() string { return e.refused.Error() }
func (e shapeError) Unwrap() error { return e.refused }

// InternalError is a failure of mlcube-compile itself on input it had
// accepted, such as an engine's own validator rejecting the output.
type InternalError struct {
	// Input names the inputs, for the report.
	Input string
	Err   error
}

func (e InternalError) Error() string {
	return fmt.Sprintf("internal error compiling %s: %v\n"+
		"This is a bug in mlcube-compile; please report it with the input at %s", e.Input, e.Err, issueURL)
}

func (e InternalError) Unwrap() error { return e.Err }

// issueURL is where bugs are reported.
const issueURL = "https://github.com/mlcube-compile/mlcube-compile/issues"

// Describe names the inputs of a compilation, for error reports.
func Describe(o compiler.Options) string {
	parts := []string{"--mlcube " + o.MLCube}
	if o.Platform != "" {
		parts = append(parts, "--platform "+o.Platform)
	}
	if o.Task != "" {
		parts = append(parts, "--task "+o.Task)
	}
	return strings.Join(parts, " ")
}
