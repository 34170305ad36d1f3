package argo_test

import (
	"testing"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"

	"github.com/mlcube-compile/mlcube-compile/backends/argo"
	"github.com/mlcube-compile/mlcube-compile/backends/argo/argotest"
	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/compiler"
	"github.com/mlcube-compile/mlcube-compile/internal/enginetest"
	"github.com/mlcube-compile/mlcube-compile/internal/manifestcheck"
)

// build compiles opts as the command does for Argo's kind eo.Kind,
// and emits the IR (manifestcheck.Build).
func build(t *testing.T, opts compiler.Options, eo emit.Options) enginetest.Emitted {
	t.Helper()
	return manifestcheck.Build(t, argo.Engine{}, opts, eo)
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
