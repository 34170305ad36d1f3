package manifestcheck

import (
	"testing"

	"github.com/mlcube-compile/mlcube-compile/backends/argo/argotest"
	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/backends/engines"
	"github.com/mlcube-compile/mlcube-compile/compiler"
	"github.com/mlcube-compile/mlcube-compile/internal/enginetest"
	"github.com/mlcube-compile/mlcube-compile/internal/examples"
)

// Specs are the files of the spec folder dir, by the examples'
// convention (internal/examples), as the command is given them.
func Specs(dir string) compiler.Options {
	ex := examples.At(dir)
	return compiler.Options{MLCube: ex.MLCube, Task: ex.Task, Platform: ex.Platform, Values: ex.Values}
}

// Build compiles opts as the command does for engine e and its kind
// eo.Kind (compiler.Pair fills in the files opts leave out, and the kind
// says whether every param needs a value now), and emits the IR. Argo's
// output passes Argo v4's strict decoding and validator too.
func Build(t testing.TB, e emit.Engine, opts compiler.Options, eo emit.Options) enginetest.Emitted {
	t.Helper()
	if e == nil {
		t.Fatal("no such engine")
	}
	opts = compiler.Pair(opts).Options
	kind, ok := emit.KindOf(e, eo.Kind)
	if !ok {
		t.Fatalf("%s emits no kind %q", e.Name(), eo.Kind)
	}
	opts.NeedValues = kind.Values
	p, diags := compiler.Compile(opts)
	out := enginetest.Emit(t, e, p, diags, eo)
	if e.Name() == "argo" && !out.Failed() {
		if err := argotest.Check(out.YAML(t)); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// BuildFor is Build for the engine whose --backend value is backend.
func BuildFor(t testing.TB, backend string, opts compiler.Options, eo emit.Options) enginetest.Emitted {
	t.Helper()
	e, ok := engines.Find(backend)
	if !ok {
		t.Fatalf("no engine %s", backend)
	}
	return Build(t, e, opts, eo)
}

// Example compiles examples/name for backend with the default options;
// it must compile.
func Example(t testing.TB, backend, name string) enginetest.Emitted {
	t.Helper()
	return BuildFor(t, backend, Specs(enginetest.Example(t, name)), emit.Options{}).Must(t)
}

// Accepts compiles opts as lint does, the pipeline as written (no param
// needs a value now; compiler.Pair fills in the files opts leave out),
// and asks the engine whose --backend value is backend whether it runs
// pipelines of that shape as kind ("" for its default): nil when it
// does, else its refusals (emit.Accepts), each naming the engine. Specs
// with errors fail t.
func Accepts(t testing.TB, backend string, opts compiler.Options, kind string) error {
	t.Helper()
	e, ok := engines.Find(backend)
	if !ok {
		t.Fatalf("no engine %s", backend)
	}
	p, diags := compiler.Compile(compiler.Pair(opts).Options)
	if diags.HasErrors() {
		t.Fatalf("the specs do not compile: %v", diags.Errors())
	}
	if shape := emit.Accepts(e, p, kind); len(shape) > 0 {
		return shape
	}
	return nil
}
