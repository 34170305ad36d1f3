package driver

import (
	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/backends/render"
	"github.com/mlcube-compile/mlcube-compile/compiler"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// Output is what a compilation prints: the bytes, and the warnings found
// on the way, each at what it is about.
type Output struct {
	Bytes    []byte
	Warnings diag.Diagnostics
}

// readPipeline compiles the workspace's specs to the IR. The warnings
// come back even when the error, the diag.Diagnostics of every error
// found, does; they are not yet silenced (Compile and Graph silence what
// they print).
func readPipeline(w *compiler.Workspace) (*ir.Pipeline, diag.Diagnostics, error) {
	p, diags := w.Compile()
	if diags.HasErrors() {
		return nil, notErrors(diags), diags.Errors()
	}
	return p, notErrors(diags), nil
}

// notErrors are the warnings and the notes of diags, sorted: a note the
// compiler makes (a choice it made, such as the GPUs a --gpus flag asks
// for) travels with the warnings.
func notErrors(diags diag.Diagnostics) diag.Diagnostics {
	var out diag.Diagnostics
	for _, d := range diags.Sorted() {
		if d.Severity != diag.Error {
			out = append(out, d)
		}
	}
	return out
}

// silenced is out without the warnings that --disable or the specs'
// disable comments silence (Workspace.Silence), applied once to all of
// an output's warnings, with a warning for each comment that silenced
// nothing when it compiled all its files say; a compile for one backend
// and a graph do not judge an engine's codes, nor the command's.
func silenced(w *compiler.Workspace, out Output, err error) (Output, error) {
	out.Warnings = w.Silence(out.Warnings)
	if err == nil && w.Whole() {
		out.Warnings = append(out.Warnings,
			w.Unused(func(c diag.Code) bool { return compiler.EngineCode(c) || compiler.CommandCode(c) })...)
	}
	return out, err
}

// IR checks the request and compiles its specs to the IR, as its backend
// needs them. The warnings come back even when the error does.
func IR(req Request) (*ir.Pipeline, diag.Diagnostics, error) {
	if _, err := req.prepare(); err != nil {
		return nil, nil, err
	}
	return readPipeline(req.workspace())
}

// Emit builds p's objects with the request's backend. A spec the backend
// cannot emit is the diag.Diagnostics error of its refusals (wrapped in a
// shapeError when the backend does not accept p, a pipeline of a shape it
// does not run); any other failure of the backend is an InternalError.
func Emit(p *ir.Pipeline, req Request) (emit.Result, error) {
	e, err := req.prepare()
	if err != nil {
		return emit.Result{}, err
	}
	res, err := emit.Emit(e, p, req.Emit)
	switch {
	case err != nil:
		return res, InternalError{Input: Describe(req.Compiler), Err: err}
	case len(res.Refused) == 0:
		return res, nil
	}
	if shape := emit.Accepts(e, p, req.Emit.Kind); len(shape) > 0 {
		return res, shapeError{refused: res.Refused, shape: shape}
	}
	return res, res.Err()
}

// Compile turns the request's specs into the YAML stream (or JSON, as
// req.Format asks) of every object its backend emits, in the order they
// are applied. Its error is a
// UsageError, the diag.Diagnostics of the spec's errors, or an
// InternalError; the warnings come back with any of them.
func Compile(req Request) (Output, error) {
	if _, err := req.prepare(); err != nil {
		return Output{}, err
	}
	w := req.workspace()
	out, err := compile(w, req)
	return silenced(w, out, err)
}

// compile is Compile of the prepared req, whose files w reads, every
// warning kept.
func compile(w *compiler.Workspace, req Request) (Output, error) {
	p, warnings, err := readPipeline(w)
	if err != nil {
		return Output{Warnings: warnings}, err
	}
	if p.Schedule != nil && !req.scheduled() {
		warnings = append(warnings,
			diag.Warnf(diag.ScheduleUnused, p.Spec.Field("schedule"), "is used only with %s", scheduledKinds()))
	}
	res, err := Emit(p, req)
	warnings = append(warnings, res.Warnings...)
	if !req.everyBackend {
		warnings = append(warnings, otherEngines(p, req.Backend)...)
	}
	if err != nil {
		return Output{Warnings: warnings}, err
	}
	encode := emit.Encode
	if req.Format == "json" {
		encode = emit.EncodeJSON
	}
	out, err := encode(res.Objects()...)
	if err != nil {
		return Output{Warnings: warnings}, InternalError{Input: Describe(req.Compiler), Err: err}
	}
	return Output{Bytes: out, Warnings: append(append(warnings, resultNotes(p)...), neededNote(p)...)}, nil
}

// Graph draws the DAG of the workspace's pipeline in format, one of
// render.Formats.
func Graph(w *compiler.Workspace, format string) (Output, error) {
	out, err := graph(w, format)
	return silenced(w, out, err)
}

// graph is Graph, every warning kept.
func graph(w *compiler.Workspace, format string) (Output, error) {
	p, warnings, err := readPipeline(w)
	if err != nil {
		return Output{Warnings: warnings}, err
	}
	out, err := render.Render(p, format)
	if err != nil {
		return Output{Warnings: warnings}, InternalError{Input: Describe(w.Options()), Err: err}
	}
	return Output{Bytes: []byte(out), Warnings: warnings}, nil
}
