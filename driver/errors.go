package driver

import (
	"fmt"
	"strings"

	"github.com/mlcube-compile/mlcube-compile/compiler"
)

// UsageError is a request that cannot be made, whatever the specs say:
// an unknown backend or kind, flags that do not go together.
type UsageError struct{ Err error }

func (e UsageError) Error() string { return e.Err.Error() }
func (e UsageError) Unwrap() error { return e.Err }

// InternalError is a failure of mlcube-compile itself on input it had
// accepted, such as an engine's own validator rejecting the output.
type InternalError struct {
	// Input names the inputs, for the report.
	Input string
	Err   error
}

func (e InternalError) Error() string {
	return fmt.Sprintf("internal error compiling %s: %v\nThis is a bug in mlcube-compile; please report it with the input at %s", e.Input, e.Err, IssueURL)
}

func (e InternalError) Unwrap() error { return e.Err }

// IssueURL is where bugs are reported.
const IssueURL = "https://github.com/mlcube-compile/mlcube-compile/issues"

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
