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

// readPipeline compiles the specs to the IR. The warnings come back even when
// the error, the diag.Diagnostics of every error found, does; they are
// not yet silenced (Compile and Graph silence what they print).
func readPipeline(opts compiler.Options) (*ir.Pipeline, diag.Diagnostics, error) {
	p, diags := compiler.Compile(opts)
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

// silencing silences one output's warnings.
type silencing struct {
	*compiler.Silencer
	// whole says the compilation is of all its files say
	// (compiler.Whole), so that their comments are judged.
	whole bool
}

// silencer silences one output's warnings: it watches opts, so that
// the disable comments of every file the compilation reads are judged.
func silencer(opts *compiler.Options) silencing {
	s := silencing{compiler.NewSilencer(opts.FS, opts.Disable), compiler.Whole(*opts)}
	s.Watch(opts)
	return s
}

// silenced is out without the warnings that --disable or the specs'
// disable comments silence (compiler.Silencer), applied once to all of
// an output's warnings, with a warning for each comment that silenced
// nothing when it compiled all its files say; a compile for one backend
// and a graph do not judge an engine's codes, nor the command's.
func silenced(s silencing, out Output, err error) (Output, error) {
	out.Warnings = s.Silence(out.Warnings)
	if err == nil && s.whole {
		out.Warnings = append(out.Warnings,
			s.Unused(func(c diag.Code) bool { return compiler.EngineCode(c) || compiler.CommandCode(c) })...)
	}
	return out, err
}

// IR checks the request and compiles its specs to the IR, as its backend
// needs them. The warnings come back even when the error does.
func IR(req Request) (*ir.Pipeline, diag.Diagnostics, error) {
	if _, err := req.prepare(); err != nil {
		return nil, nil, err
	}
	return readPipeline(req.Compiler)
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
	s := silencer(&req.Compiler)
	out, err := compile(req)
	return silenced(s, out, err)
}

// compile is Compile, every warning kept.
func compile(req Request) (Output, error) {
	p, warnings, err := IR(req)
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

// Graph draws the pipeline's DAG in format, one of render.Formats.
func Graph(opts compiler.Options, format string) (Output, error) {
	s := silencer(&opts)
	out, err := graph(opts, format)
	return silenced(s, out, err)
}

// graph is Graph, every warning kept.
func graph(opts compiler.Options, format string) (Output, error) {
	p, warnings, err := readPipeline(opts)
	if err != nil {
		return Output{Warnings: warnings}, err
	}
	out, err := render.Render(p, format)
	if err != nil {
		return Output{Warnings: warnings}, InternalError{Input: Describe(opts), Err: err}
	}
	return Output{Bytes: []byte(out), Warnings: warnings}, nil
}
