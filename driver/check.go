package driver

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mlcube-compile/mlcube-compile/backends/argo"
	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/compiler"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// target is one backend, and its options, that Check emits for.
type target struct {
	engine emit.Engine
	opts   emit.Options
}

// Check emits p for each of backends, every backend when there are none
// (CheckBackends says whether each is one), and for argo also as a
// CronWorkflow when p has a schedule and every param a value, each
// checked by its engine's validator. It returns what they found: their
// warnings, each at what it is about, and their refusals, each prefixed
// with the backend's name. The job backend applies only to one task with
// every param set; where it refuses the spec, it does not apply.
func Check(p *ir.Pipeline, backends []string) diag.Diagnostics {
	var targets []target
	for _, e := range engines {
		if len(backends) == 0 || slices.Contains(backends, e.Name()) {
			targets = append(targets, target{engine: e})
		}
	}
	if cron := (argo.Engine{}); p.Schedule != nil && allParamsSet(p) && (len(backends) == 0 || slices.Contains(backends, cron.Name())) {
		targets = append(targets, target{cron, emit.Options{Kind: string(argo.KindCronWorkflow)}})
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

// Lint is what lint reports of one compilation: the compiler's
// diagnostics, and when they hold no error, Check's of the IR for each of
// backends.
func Lint(opts compiler.Options, backends []string) diag.Diagnostics {
	p, diags := compiler.Compile(opts)
	if diags.HasErrors() {
		return diags
	}
	return append(diags, Check(p, backends)...)
}

// CheckBackends refuses, as a UsageError that lists the backends, a name
// that is not one: the names lint's --backend gives Check.
func CheckBackends(names []string) error {
	for _, name := range names {
		if _, ok := engine(name); !ok {
			return UsageError{fmt.Errorf("unknown backend %q (backends: %s)", name, strings.Join(Backends(), ", "))}
		}
	}
	return nil
}

// checkRefusal is an engine's error as lint reports it: the backend's
// name before a spec's fault, and before a bug of ours, which is at the
// pipeline file's --backend.
func checkRefusal(p *ir.Pipeline, backend string, err error) diag.Diagnostics {
	var found diag.Diagnostics
	if errors.As(refusal(p, p.Source, err), &found) {
		for i := range found {
			found[i].Message = backend + ": " + found[i].Message
		}
		return found
	}
	return diag.Diagnostics{{Pos: diag.Pos{File: p.Source}, Field: "--backend", Message: backend + ": " + InternalError{Input: p.Source, Err: err}.Error()}}
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
