package engines_test

import (
	"testing"

	"github.com/mlcube-compile/mlcube-compile/backends/argo/argotest"
	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/backends/engines"
	"github.com/mlcube-compile/mlcube-compile/backends/internal/enginetest"
	"github.com/mlcube-compile/mlcube-compile/compiler"
	"github.com/mlcube-compile/mlcube-compile/internal/examples"
)

// These tests compile one spec for several engines and check what each
// makes of it.

// specs are the files of the spec folder dir, by the examples'
// convention (internal/examples), as the command is given them.
func specs(dir string) compiler.Options {
	ex := examples.At(dir)
	return compiler.Options{MLCube: ex.MLCube, Task: ex.Task, Platform: ex.Platform, Values: ex.Values}
}

// build compiles opts as the command does for backend and its kind
// eo.Kind (compiler.Pair fills in the files opts leave out) and emits the
// IR. Argo's output passes Argo v4's strict decoding and validator too.
func build(t *testing.T, backend string, opts compiler.Options, eo emit.Options) enginetest.Emitted {
	t.Helper()
	e, ok := engines.Find(backend)
	if !ok {
		t.Fatalf("no engine %s", backend)
	}
	opts = compiler.Pair(opts).Options
	opts.NeedValues = e.Needs(eo.Kind).Values
	p, diags := compiler.Compile(opts)
	out := enginetest.Emit(t, e, p, diags, eo)
	if backend == "argo" && !out.Failed() {
		if err := argotest.Check(out.YAML(t)); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// example compiles examples/name for backend; it must compile.
func example(t *testing.T, backend, name string) enginetest.Emitted {
	t.Helper()
	return build(t, backend, specs(enginetest.Example(t, name)), emit.Options{}).Must(t)
}

// backendNames are every engine's --backend value, in help's order.
func backendNames() []string {
	var names []string
	for _, e := range engines.All {
		names = append(names, e.Name())
	}
	return names
}
