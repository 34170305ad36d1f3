package tekton_test

import (
	"testing"

	tektonv1 "github.com/tektoncd/pipeline/pkg/apis/pipeline/v1"

	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/backends/internal/enginetest"
	"github.com/mlcube-compile/mlcube-compile/backends/tekton"
	"github.com/mlcube-compile/mlcube-compile/compiler"
	"github.com/mlcube-compile/mlcube-compile/internal/examples"
)

// specs are the files of the spec folder dir, by the examples'
// convention (internal/examples), as the command is given them.
func specs(dir string) compiler.Options {
	ex := examples.At(dir)
	return compiler.Options{MLCube: ex.MLCube, Task: ex.Task, Platform: ex.Platform, Values: ex.Values}
}

// build compiles opts as the command does for Tekton's kind eo.Kind
// (compiler.Pair fills in the files opts leave out) and emits the IR.
func build(t *testing.T, opts compiler.Options, eo emit.Options) enginetest.Emitted {
	t.Helper()
	opts = compiler.Pair(opts).Options
	opts.NeedValues = tekton.Engine{}.Needs(eo.Kind).Values
	p, diags := compiler.Compile(opts)
	return enginetest.Emit(t, tekton.Engine{}, p, diags, eo)
}

// pipelineRun is the PipelineRun of examples/name.
func pipelineRun(t *testing.T, name string) *tektonv1.PipelineRun {
	t.Helper()
	out := build(t, specs(enginetest.Example(t, name)), emit.Options{}).Must(t)
	pr, ok := out.Run.(*tektonv1.PipelineRun)
	if !ok {
		t.Fatalf("%s: the run is a %T, want a PipelineRun", name, out.Run)
	}
	return pr
}
