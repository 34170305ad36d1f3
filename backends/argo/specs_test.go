package argo_test

import (
	"testing"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"

	"github.com/mlcube-compile/mlcube-compile/backends/argo"
	"github.com/mlcube-compile/mlcube-compile/backends/argo/argotest"
	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/backends/internal/enginetest"
	"github.com/mlcube-compile/mlcube-compile/compiler"
	"github.com/mlcube-compile/mlcube-compile/internal/examples"
)

// specs are the files of the spec folder dir, by the examples'
// convention (internal/examples), as the command is given them.
func specs(dir string) compiler.Options {
	ex := examples.At(dir)
	return compiler.Options{MLCube: ex.MLCube, Task: ex.Task, Platform: ex.Platform, Values: ex.Values}
}

// build compiles opts as the command does for Argo's kind eo.Kind
// (compiler.Pair fills in the files opts leave out) and emits the IR.
func build(t *testing.T, opts compiler.Options, eo emit.Options) enginetest.Emitted {
	t.Helper()
	opts = compiler.Pair(opts).Options
	opts.NeedValues = argo.Engine{}.Needs(eo.Kind).Values
	p, diags := compiler.Compile(opts)
	return enginetest.Emit(t, argo.Engine{}, p, diags, eo)
}

// workflow is the Workflow of out, which must compile, as written passing
// Argo v3.7's and v4's strict decoding and validators.
func workflow(t *testing.T, out enginetest.Emitted) *wfv1.Workflow {
	t.Helper()
	out.Must(t)
	wf, ok := out.Run.(*wfv1.Workflow)
	if !ok {
		t.Fatalf("the run is a %T, want a Workflow", out.Run)
	}
	if err := argotest.Check(out.YAML(t)); err != nil {
		t.Fatal(err)
	}
	return wf
}
