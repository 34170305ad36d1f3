package driver

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/backends/engines"
	"github.com/mlcube-compile/mlcube-compile/compiler"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// target is one backend, and its options, that Check emits for.
type target struct {
	engine emit.Engine
	opts   emit.Options
}

// checkEngines emits p for each of backends, every backend when there are none
// (CheckBackends says whether each is one): as each one's default kind,
// and as each kind that starts its runs on a schedule when p has one and
// the values that kind needs, each checked by its engine's validator. It
// returns what they found: their warnings, each at what it is about, and
// their refusals, each naming its engine.
func checkEngines(p *ir.Pipeline, backends []string) diag.Diagnostics {
	var out diag.Diagnostics
	for _, t := range checkTargets(p, backends) {
		res, err := emit.Emit(t.engine, p, t.opts)
		if err != nil {
			out = append(out, diag.Diagnostic{Pos: diag.Pos{File: p.Source}, Flag: "--backend", Code: diag.Internal,
				Engine: t.engine.Name(), Message: InternalError{Input: p.Source, Err: err}.Error()})
			continue
		}
		out = append(append(out, res.Warnings...), res.Refused...)
	}
	return out
}

// checkTargets are the engines and kinds Check emits p as. A kind whose
// engine does not accept p (it does not run pipelines of p's shape: the
// job engine runs one container step with every param set) is left out.
func checkTargets(p *ir.Pipeline, backends []string) []target {
	var out []target
	for _, e := range engines.All {
		if len(backends) > 0 && !slices.Contains(backends, e.Name()) {
			continue
		}
		for i, k := range e.Kinds() {
			t := target{engine: e}
			if i > 0 {
				if !k.Schedule || p.Schedule == nil || (k.Values != "" && !allParamsSet(p)) {
					continue
				}
				t.opts.Kind = k.Name
			}
			if len(e.Accepts(p, t.opts.Kind)) == 0 {
				out = append(out, t)
			}
		}
	}
	return out
}

// Lint is what lint reports of one compilation: the compiler's
// diagnostics, and when they hold no error, Check's of the IR for each of
// backends, silenced; and what silencing found (the files read, the
// disable comments used), for lint to judge the comments on every
// compilation of a file (compiler.UnusedComments).
func Lint(opts compiler.Options, backends []string) (diag.Diagnostics, compiler.Silenced) {
	w := compiler.Load(opts)
	p, diags := w.Compile()
	if !diags.HasErrors() {
		diags = append(diags, checkEngines(p, backends)...)
	}
	return w.Silence(diags), w.Silenced()
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

// allParamsSet reports whether every param has a value.
func allParamsSet(p *ir.Pipeline) bool {
	for _, pp := range p.Params {
		if pp.Default == nil {
			return false
		}
	}
	return true
}
