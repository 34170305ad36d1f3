package tekton_test

import (
	"slices"
	"strings"
	"testing"
)

// The job is created owned by the step's pod (the kubelet fills in
// $(POD_NAME) and $(POD_UID), defined before MANIFEST), and the script
// deletes an earlier attempt's job first and its own on any exit but
// success.
func TestTektonJobsOwnedFromCreation(t *testing.T) {
	step := pipelineRun(t, "resnet50-multinode").Spec.PipelineSpec.Tasks[0].TaskSpec.Steps[0]
	var names []string
	for _, e := range step.Env {
		names = append(names, e.Name)
		if e.Name == "MANIFEST" && !strings.Contains(e.Value,
			`"ownerReferences":[{"apiVersion":"v1","kind":"Pod","name":"$(POD_NAME)","uid":"$(POD_UID)"}]`) {
			t.Errorf("the job is not owned by the step's pod from creation: %s", e.Value)
		}
	}
	if strings.Join(names[:3], " ") != "POD_NAME POD_UID MANIFEST" {
		t.Errorf("env %v: POD_NAME and POD_UID must come before MANIFEST for the kubelet to expand them", names)
	}
	if !strings.HasPrefix(step.Script, "#!/bin/sh\n") || !strings.Contains(step.Script, "trap cleanup EXIT") {
		t.Errorf("the kubectl step does not run the wait script with its EXIT trap")
	}
	if step.Image != "docker.io/alpine/kubectl:1.34.1" {
		t.Errorf("kubectl image %q, want the maintained, pinned default", step.Image)
	}
}

// A run whose steps create jobs has a finally task that deletes them by
// the run's label when the run did not succeed: the wait step's EXIT
// trap does not run when it is OOM-killed or evicted, and its Failed pod
// keeps the job's owner reference from collecting the job. The kubectl
// steps ask for requests and limits, so they are not BestEffort.
func TestTektonCleansUpJobsInFinally(t *testing.T) {
	for ex, kinds := range map[string]string{"resnet50-multinode": "mpijobs.kubeflow.org",
		"dask-benchmark": "daskjobs.kubernetes.dask.org", "dask-map": "jobsets.jobset.x-k8s.io"} {
		spec := pipelineRun(t, ex).Spec.PipelineSpec
		if len(spec.Finally) != 1 {
			t.Fatalf("%s: %d finally tasks, want the cleanup", ex, len(spec.Finally))
		}
		cleanup := spec.Finally[0]
		if w := cleanup.When; len(w) != 1 || w[0].Input != "$(tasks.status)" || string(w[0].Operator) != "notin" ||
			!slices.Equal(w[0].Values, []string{"Succeeded", "Completed"}) {
			t.Errorf("%s: the cleanup runs when %+v, want when the tasks did not succeed", ex, w)
		}
		step := cleanup.TaskSpec.Steps[0]
		env := map[string]string{}
		for _, e := range step.Env {
			env[e.Name] = e.Value
		}
		if env["KINDS"] != kinds || env["SELECTOR"] != "mlcube-compile/run=$(context.pipelineRun.name)" ||
			!strings.Contains(step.Script, `kubectl delete "$KINDS" -l "$SELECTOR"`) {
			t.Errorf("%s: the cleanup does not delete the run's %s: env %v, script %q", ex, kinds, env, step.Script)
		}
		for _, task := range append(spec.Tasks, cleanup) {
			for _, s := range task.TaskSpec.Steps {
				if s.Image != step.Image {
					continue
				}
				if r := s.ComputeResources; r.Requests.Memory().IsZero() || r.Limits.Memory().IsZero() ||
					r.Requests.Cpu().IsZero() {
					t.Errorf("%s: the kubectl step of %s has resources %v, want requests and limits", ex, task.Name, r)
				}
			}
		}
	}
	if pr := pipelineRun(t, "mnist"); len(pr.Spec.PipelineSpec.Finally) != 0 {
		t.Errorf("mnist creates no jobs, yet has finally tasks %v", pr.Spec.PipelineSpec.Finally)
	}
}
