package driver

import (
	"errors"
	"fmt"
	"strings"

	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/compiler"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
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

// refusal maps an engine's error: diagnostics at what the spec wrote stay
// as they are, a spec it cannot emit becomes a diagnostic at the pipeline
// file, anything else an InternalError.
func refusal(p *ir.Pipeline, input string, err error) error {
	file := diag.Pos{File: p.Source}
	var tooLarge *emit.TooLargeError
	var spec *emit.SpecError
	var at diag.Diagnostics
	switch {
	case errors.As(err, &at):
		// The engine refuses at what the spec wrote.
		return at
	case errors.As(err, &tooLarge):
		return diag.Diagnostics{{Pos: file, Field: "steps", Message: err.Error()}}
	case errors.As(err, &spec):
		return diag.Diagnostics{{Pos: file, Field: spec.Field, Message: spec.Message}}
	}
	return InternalError{Input: input, Err: err}
}
