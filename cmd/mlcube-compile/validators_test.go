package main

import (
	"context"
	"testing"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	"github.com/argoproj/argo-workflows/v3/workflow/validate"
	tektonv1 "github.com/tektoncd/pipeline/pkg/apis/pipeline/v1"
	batchv1 "k8s.io/api/batch/v1"
	"knative.dev/pkg/apis"
	"sigs.k8s.io/yaml"

	"github.com/mlcube-compile/mlcube-compile/backends/job"
)

// validators parse a manifest back, strictly, and run the backend's
// upstream validator on it, as the cluster would when it is created.
var validators = map[string]func(t *testing.T, name, manifest string){
	"argo": func(t *testing.T, name, manifest string) {
		validateWorkflow(t, name, manifest)
		validateEmbeddedJobs(t, "argo", manifest)
	},
	"tekton": func(t *testing.T, name, manifest string) {
		validatePipelineRun(t, name, manifest)
		validateEmbeddedJobs(t, "tekton", manifest)
	},
	"job": func(t *testing.T, name, manifest string) {
		validateJob(t, name, manifest)
	},
}

// validateWorkflow parses a manifest back and runs Argo's own validator.
func validateWorkflow(t *testing.T, name, manifest string) *wfv1.Workflow {
	t.Helper()
	var wf wfv1.Workflow
	if err := yaml.UnmarshalStrict([]byte(manifest), &wf); err != nil {
		t.Fatalf("%s: not a Workflow: %v", name, err)
	}
	if err := validate.ValidateWorkflow(nil, nil, &wf, nil, validate.ValidateOpts{Lint: true}); err != nil {
		t.Fatalf("%s: Argo's validator rejects it: %v", name, err)
	}
	return &wf
}

// validatePipelineRun runs Tekton's defaulting and validation on a copy
// named as the API server names it from generateName.
func validatePipelineRun(t *testing.T, name, manifest string) *tektonv1.PipelineRun {
	t.Helper()
	var pr tektonv1.PipelineRun
	if err := yaml.UnmarshalStrict([]byte(manifest), &pr); err != nil {
		t.Fatalf("%s: not a PipelineRun: %v", name, err)
	}
	if pr.APIVersion != "tekton.dev/v1" || pr.Kind != "PipelineRun" {
		t.Fatalf("%s: %s %s, want tekton.dev/v1 PipelineRun", name, pr.APIVersion, pr.Kind)
	}
	created := pr.DeepCopy()
	created.Name = pr.GenerateName + "abcde"
	ctx := apis.WithinCreate(context.Background())
	created.SetDefaults(ctx)
	if ferr := created.Validate(ctx); ferr != nil {
		t.Fatalf("%s: Tekton's validation rejects it: %v", name, ferr)
	}
	return &pr
}

// validateJob parses a Job back and checks it.
func validateJob(t *testing.T, name, manifest string) *batchv1.Job {
	t.Helper()
	var j batchv1.Job
	if err := yaml.UnmarshalStrict([]byte(manifest), &j); err != nil {
		t.Fatalf("%s: not a Job: %v", name, err)
	}
	if j.APIVersion != "batch/v1" || j.Kind != "Job" {
		t.Fatalf("%s: %s %s, want batch/v1 Job", name, j.APIVersion, j.Kind)
	}
	if err := job.Validate(&j); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return &j
}
