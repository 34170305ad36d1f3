package driver

import (
	"errors"

	"github.com/mlcube-compile/mlcube-compile/backends/argo"
	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// target is one backend, and its options, that Check emits for.
type target struct {
	engine emit.Engine
	opts   emit.Options
}

// Check emits p for every backend, and as a CronWorkflow when it has a
// schedule and every param a value, each checked by its engine's
// validator, and returns what they found: their warnings, each at what
// it is about, and their refusals, each prefixed with the backend's name.
// The job backend applies only to one task with every param set; where
// it refuses the spec, it does not apply.
func Check(p *ir.Pipeline) diag.Diagnostics {
	var targets []target
	for _, e := range engines {
		targets = append(targets, target{engine: e})
	}
	if p.Schedule != nil && allParamsSet(p) {
		targets = append(targets, target{argo.Engine{}, emit.Options{Kind: string(argo.KindCronWorkflow)}})
	}
	var out diag.Diagnostics
	for _, t := range targets {
		res, err := t.engine.Emit(p, t.opts)
		out = append(out, res.Warnings...)
		if err == nil {
			continue
		}
		var spec *emit.SpecError
		if t.engine.Name() == "job" && errors.As(err, &spec) {
			continue
		}
		out = append(out, checkRefusal(p, t.engine.Name(), err)...)
	}
	return out
}

// checkRefusal is an engine's error as lint reports it: the backend's
// name before a spec's fault, and a bug of ours at the backend's name.
func checkRefusal(p *ir.Pipeline, backend string, err error) diag.Diagnostics {
	var found diag.Diagnostics
	if errors.As(refusal(p, p.Source, err), &found) {
		for i := range found {
			found[i].Message = backend + ": " + found[i].Message
		}
		return found
	}
	return diag.Diagnostics{{Pos: diag.Pos{File: p.Source}, Field: backend, Message: InternalError{Input: p.Source, Err: err}.Error()}}
}

// allParamsSet reports whether every param has a value.
func allParamsSet(p *ir.Pipeline) bool {
	for _, pp := range p.Params {
		if pp.Default == nil {
			return false
		}
	}
	return true
}
