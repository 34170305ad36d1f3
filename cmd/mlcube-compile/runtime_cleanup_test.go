package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// On Argo, a run that fails, times out or is stopped deletes the jobs it
// created (an exit handler, which Argo runs on spec.shutdown: Stop), and
// each attempt of a distributed step first deletes what an earlier
// attempt left, waiting until it is gone, so two never run at once.
func TestArgoCleansUpJobs(t *testing.T) {
	for ex, kinds := range map[string]string{"resnet50-multinode": "mpijobs.kubeflow.org", "dask-benchmark": "daskjobs.kubernetes.dask.org"} {
		wf := validateWorkflow(t, ex, compileExample(t, "argo", ex))
		handler := wf.GetTemplateByName(wf.Spec.OnExit)
		if handler == nil || len(handler.Steps) != 1 || len(handler.Steps[0].Steps) != 1 {
			t.Fatalf("%s: no exit handler: onExit %q", ex, wf.Spec.OnExit)
		}
		step := handler.Steps[0].Steps[0]
		if step.When != "{{workflow.status}} != Succeeded" {
			t.Errorf("%s: the exit handler runs when %q, want when the run did not succeed", ex, step.When)
		}
		del := wf.GetTemplateByName(step.Template).Resource
		if del == nil || del.Action != "delete" || !slices.Equal(del.Flags, []string{kinds, "--selector=mlcube-compile/run={{workflow.name}}", "--wait=false"}) {
			t.Errorf("%s: the exit handler does not delete the run's %s: %+v", ex, kinds, del)
		}
		for _, task := range wf.Spec.Templates[0].DAG.Tasks {
			outer := wf.GetTemplateByName(task.Template)
			if len(outer.Steps) < 2 {
				t.Fatalf("%s: step %s is not a steps template that cleans before it runs", ex, task.Name)
			}
			clean := wf.GetTemplateByName(outer.Steps[0].Steps[0].Template).Resource
			want := []string{kinds, "--selector=mlcube-compile/run={{workflow.name}},mlcube-compile/step=" + task.Name, "--cascade=foreground", "--wait=true", "--timeout=10m"}
			if clean == nil || clean.Action != "delete" || !slices.Equal(clean.Flags, want) {
				t.Errorf("%s: step %s does not first delete an earlier attempt's job: %+v", ex, task.Name, clean)
			}
			if task.Name == "benchmark-fixed" && (outer.RetryStrategy == nil || outer.RetryStrategy.Limit.IntValue() != 1) {
				t.Errorf("%s: step %s: retries belong to the whole attempt, clean and run: %+v", ex, task.Name, outer.RetryStrategy)
			}
		}
	}
}

// On Tekton, the job is created owned by the step's pod (the kubelet
// fills in $(POD_NAME) and $(POD_UID), defined before MANIFEST), and the
// script deletes an earlier attempt's job first and its own on any exit
// but success.
func TestTektonJobsOwnedFromCreation(t *testing.T) {
	pr := validatePipelineRun(t, "resnet", compileExample(t, "tekton", "resnet50-multinode"))
	step := pr.Spec.PipelineSpec.Tasks[0].TaskSpec.Steps[0]
	var names []string
	for _, e := range step.Env {
		names = append(names, e.Name)
		if e.Name == "MANIFEST" && !strings.Contains(e.Value, `"ownerReferences":[{"apiVersion":"v1","kind":"Pod","name":"$(POD_NAME)","uid":"$(POD_UID)"}]`) {
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

// A DAG of more than 32 tasks is validated 32 tasks at a time; the exit
// handler that deletes jobs belongs to every window.
func TestLargeDAGWithDistributedStepKeepsExitHandler(t *testing.T) {
	steps := "  mpi: {task: train, mpi: {workers: 2}, outputs: {output_dir: mpi/}}\n"
	for i := 0; i < 40; i++ {
		steps += fmt.Sprintf("  s%02d: {task: train, outputs: {output_dir: out%02d/}}\n", i, i)
	}
	dir := storagePipeline(t, steps, "  pvc: nfs\n")
	for _, kind := range []string{"workflow", "workflowtemplate"} {
		out, _ := compileDir(t, "argo", dir, "--kind", kind)
		if !strings.Contains(out, "onExit: cleanup") {
			t.Errorf("%s: no exit handler", kind)
		}
	}
}

// On Tekton, a run whose steps create jobs has a finally task that
// deletes them by the run's label when the run did not succeed: the wait
// step's EXIT trap does not run when it is OOM-killed or evicted, and its
// Failed pod keeps the job's owner reference from collecting the job. The
// kubectl steps ask for requests and limits, so they are not BestEffort.
func TestTektonCleansUpJobsInFinally(t *testing.T) {
	for ex, kinds := range map[string]string{"resnet50-multinode": "mpijobs.kubeflow.org", "dask-benchmark": "daskjobs.kubernetes.dask.org"} {
		pr := validatePipelineRun(t, ex, compileExample(t, "tekton", ex))
		spec := pr.Spec.PipelineSpec
		if len(spec.Finally) != 1 {
			t.Fatalf("%s: %d finally tasks, want the cleanup", ex, len(spec.Finally))
		}
		cleanup := spec.Finally[0]
		if w := cleanup.When; len(w) != 1 || w[0].Input != "$(tasks.status)" || string(w[0].Operator) != "notin" || !slices.Equal(w[0].Values, []string{"Succeeded", "Completed"}) {
			t.Errorf("%s: the cleanup runs when %+v, want when the tasks did not succeed", ex, w)
		}
		step := cleanup.TaskSpec.Steps[0]
		env := map[string]string{}
		for _, e := range step.Env {
			env[e.Name] = e.Value
		}
		if env["KINDS"] != kinds || env["SELECTOR"] != "mlcube-compile/run=$(context.pipelineRun.name)" || !strings.Contains(step.Script, `kubectl delete "$KINDS" -l "$SELECTOR"`) {
			t.Errorf("%s: the cleanup does not delete the run's %s: env %v, script %q", ex, kinds, env, step.Script)
		}
		for _, task := range append(spec.Tasks, cleanup) {
			for _, s := range task.TaskSpec.Steps {
				if s.Image != step.Image {
					continue
				}
				if r := s.ComputeResources; r.Requests.Memory().IsZero() || r.Limits.Memory().IsZero() || r.Requests.Cpu().IsZero() {
					t.Errorf("%s: the kubectl step of %s has resources %v, want requests and limits", ex, task.Name, r)
				}
			}
		}
	}
	if pr := validatePipelineRun(t, "mnist", compileExample(t, "tekton", "mnist")); len(pr.Spec.PipelineSpec.Finally) != 0 {
		t.Errorf("mnist creates no jobs, yet has finally tasks %v", pr.Spec.PipelineSpec.Finally)
	}
}
