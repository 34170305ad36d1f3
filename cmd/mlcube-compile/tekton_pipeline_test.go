package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	tektonv1 "github.com/tektoncd/pipeline/pkg/apis/pipeline/v1"
	"knative.dev/pkg/apis"
	"sigs.k8s.io/yaml"

	"github.com/mlcube-compile/mlcube-compile/backends/tekton/tkntest"
)

// validateTektonPipeline parses the run document as a tekton.dev/v1
// Pipeline, strictly, and runs Tekton's defaulting and validation on a
// copy, as its webhook does when the Pipeline is created.
func validateTektonPipeline(t *testing.T, name, manifest string) *tektonv1.Pipeline {
	t.Helper()
	var pl tektonv1.Pipeline
	if err := yaml.UnmarshalStrict([]byte(runDocument(t, name, manifest)), &pl); err != nil {
		t.Fatalf("%s: not a Pipeline: %v", name, err)
	}
	if pl.APIVersion != "tekton.dev/v1" || pl.Kind != "Pipeline" || pl.Name == "" {
		t.Fatalf("%s: %s %s %q, want a named tekton.dev/v1 Pipeline", name, pl.APIVersion, pl.Kind, pl.Name)
	}
	created := pl.DeepCopy()
	ctx := apis.WithinCreate(context.Background())
	created.SetDefaults(ctx)
	if ferr := created.Validate(ctx); ferr != nil {
		t.Fatalf("%s: Tekton's validation rejects the Pipeline: %v", name, ferr)
	}
	return &pl
}

// tknStart is the PipelineRun that `tkn pipeline start NAME -n NAMESPACE
// --use-param-defaults` makes of the Pipeline in manifest, with the flags
// that the warnings on stderr give (and their taskRunSpecs added).
func tknStart(t *testing.T, name, manifest, stderr string) (*tektonv1.Pipeline, *tektonv1.PipelineRun) {
	t.Helper()
	pl := validateTektonPipeline(t, name, manifest)
	start, err := tkntest.FromWarnings(strings.Split(stderr, "\n"))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	pr, err := start.PipelineRun(pl, "-n", pl.Namespace, "--use-param-defaults")
	if err != nil {
		t.Fatalf("%s: tkn pipeline start %s %s: %v\nstderr:\n%s", name, pl.Name, strings.Join(start.Args, " "), err, stderr)
	}
	return pl, pr
}

// validateTknStart runs Tekton's defaulting and validation on the run
// tknStart makes, named as the API server names it.
func validateTknStart(t *testing.T, name, manifest, stderr string) *tektonv1.PipelineRun {
	t.Helper()
	_, pr := tknStart(t, name, manifest, stderr)
	created := pr.DeepCopy()
	created.Name = pr.GenerateName + "abcde"
	ctx := apis.WithinCreate(context.Background())
	created.SetDefaults(ctx)
	if ferr := created.Validate(ctx); ferr != nil {
		t.Fatalf("%s: Tekton's validation rejects the run tkn pipeline start makes: %v", name, ferr)
	}
	return pr
}

// taskJobs finds the jobs Tekton tasks create: the MANIFEST env of their
// kubectl steps.
func taskJobs(t *testing.T, tasks []tektonv1.PipelineTask) []map[string]any {
	t.Helper()
	var jobs []map[string]any
	for _, task := range tasks {
		for _, step := range task.TaskSpec.Steps {
			for _, e := range step.Env {
				if e.Name != "MANIFEST" {
					continue
				}
				var m map[string]any
				// The kubelet turns $$ back into $.
				if err := json.Unmarshal([]byte(strings.ReplaceAll(e.Value, "$$", "$")), &m); err != nil {
					t.Fatalf("task %s: %v", task.Name, err)
				}
				jobs = append(jobs, m)
			}
		}
	}
	return jobs
}
