package argo_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"

	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/internal/enginetest"
	"github.com/mlcube-compile/mlcube-compile/internal/manifestcheck"
)

// retriedBucketPipeline is bucket-pipeline with its train step retried.
func retriedBucketPipeline(t *testing.T) *wfv1.Workflow {
	t.Helper()
	ex := enginetest.Example(t, "bucket-pipeline")
	platform, err := os.ReadFile(filepath.Join(ex, "platform.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := enginetest.WriteFiles(t, map[string]string{
		"pipeline.yaml": "name: retried\ncubes: {c: " + ex + "}\nsteps:\n" +
			"  prepare: {cube: c, task: prepare, inputs: {raw_dir: \"s3://mlcube-e2e/raw/\"}}\n" +
			"  train: {cube: c, task: train, retries: {limit: 2}}\n" +
			"  evaluate: {cube: c, task: evaluate}\n",
		"platform.yaml": string(platform),
	})
	return workflow(t, build(t, manifestcheck.Specs(dir), emit.Options{}))
}

// Argo's wait container uploads a failed attempt's outputs too, and its
// S3 driver deletes nothing at a key: each attempt of a retried step
// uploads below keys of its own, it records its number, and a step that
// fetches them fetches the attempt that succeeded (issue 49, point 1).
func TestRetriedStepUploadsPerAttempt(t *testing.T) {
	wf := retriedBucketPipeline(t)
	train := wf.GetTemplateByName("train")
	if train == nil {
		t.Fatal("no train template")
	}
	for _, a := range train.Outputs.Artifacts {
		if a.S3 == nil || !strings.HasPrefix(a.S3.Key, "{{workflow.uid}}/train.{{retries}}/") {
			t.Errorf("train's upload %s is at %+v, want a key of its attempt", a.Name, a.S3)
		}
	}
	if !slices.ContainsFunc(train.Outputs.Parameters, func(p wfv1.Parameter) bool { return p.Name == "mlcube-attempt" }) {
		t.Errorf("train records no attempt: %+v", train.Outputs.Parameters)
	}
	main := containerNamed(train.ContainerSet, "main")
	if main == nil || !slices.Contains(main.Args, "{{retries}}") {
		t.Errorf("train's digest container writes no attempt: %+v", main)
	}
	for _, task := range wf.Spec.Templates[0].DAG.Tasks {
		for _, a := range task.Arguments.Artifacts {
			from := strings.TrimPrefix(a.Name, "train-")
			if from == a.Name {
				continue
			}
			if want := "{{workflow.uid}}/train.{{tasks.train.outputs.parameters.mlcube-attempt}}/" + from; a.S3 == nil ||
				a.S3.Key != want {
				t.Errorf("task %s fetches %s at %+v, want %s", task.Name, a.Name, a.S3, want)
			}
		}
	}
	if prep := wf.GetTemplateByName("prepare"); prep == nil ||
		strings.Contains(prep.Outputs.Artifacts[0].S3.Key, "{{retries}}") {
		t.Errorf("prepare, not retried, uploads per attempt")
	}
}

// A fetched folder may be empty, which uploads no object: its artifact
// is optional, and the step's folders container makes its scratch
// folder, whose digest verify checks (issue 49, point 9); the same
// container makes each output folder, and the folder of each output
// file, before the step's own starts (point 10).
func TestFoldersBeforeTheStep(t *testing.T) {
	wf := objectWorkflow(t, "bucket-pipeline")
	for _, task := range wf.Spec.Templates[0].DAG.Tasks {
		for _, a := range task.Arguments.Artifacts {
			if !a.Optional {
				t.Errorf("task %s: the fetch of the folder %s is required", task.Name, a.Name)
			}
		}
	}
	ev := wf.GetTemplateByName("evaluate")
	if ev == nil || len(ev.InitContainers) != 1 {
		t.Fatalf("evaluate's init containers: %+v", ev)
	}
	args := strings.Join(ev.InitContainers[0].Args, " ")
	for _, want := range []string{"folder /mlcube-scratch/train-model-dir", "file /mnt/mlcube/metrics/metrics.json"} {
		if !strings.Contains(args, want) {
			t.Errorf("evaluate's folders container makes %q, not %q", args, want)
		}
	}
}
