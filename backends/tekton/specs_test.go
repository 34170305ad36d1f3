package tekton_test

import (
	"testing"

	tektonv1 "github.com/tektoncd/pipeline/pkg/apis/pipeline/v1"

	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/backends/tekton"
	"github.com/mlcube-compile/mlcube-compile/compiler"
	"github.com/mlcube-compile/mlcube-compile/internal/enginetest"
	"github.com/mlcube-compile/mlcube-compile/internal/manifestcheck"
)

// build compiles opts as the command does for Tekton's kind eo.Kind,
// and emits the IR (manifestcheck.Build).
func build(t *testing.T, opts compiler.Options, eo emit.Options) enginetest.Emitted {
	t.Helper()
	return manifestcheck.Build(t, tekton.Engine{}, opts, eo)
}

// pipelineRun is the PipelineRun of examples/name.
func pipelineRun(t *testing.T, name string) *tektonv1.PipelineRun {
	t.Helper()
	out := build(t, manifestcheck.Specs(enginetest.Example(t, name)), emit.Options{}).Must(t)
	pr, ok := out.Run.(*tektonv1.PipelineRun)
	if !ok {
		t.Fatalf("%s: the run is a %T, want a PipelineRun", name, out.Run)
	}
	return pr
}
