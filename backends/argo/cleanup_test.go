package argo_test

import (
	"fmt"
	"slices"
	"testing"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"

	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/internal/enginetest"
	"github.com/mlcube-compile/mlcube-compile/internal/manifestcheck"
)

// A run that fails, times out or is stopped deletes the jobs it created
// (an exit handler, which Argo runs on spec.shutdown: Stop), and each
// attempt of a distributed step first deletes what an earlier attempt
// left, waiting until it is gone, so two never run at once.
func TestArgoCleansUpJobs(t *testing.T) {
	for ex, kinds := range map[string]string{"resnet50-multinode": "mpijobs.kubeflow.org", "dask-benchmark": "daskjobs.kubernetes.dask.org"} {
		wf := workflow(t, build(t, manifestcheck.Specs(enginetest.Example(t, ex)), emit.Options{}))
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

// A DAG of more than 32 tasks is validated 32 tasks at a time; the exit
// handler that deletes jobs belongs to every window.
func TestLargeDAGWithDistributedStepKeepsExitHandler(t *testing.T) {
	steps := "  mpi: {task: train, mpi: {workers: 2}, outputs: {output_dir: mpi/}}\n"
	for i := 0; i < 40; i++ {
		steps += fmt.Sprintf("  s%02d: {task: train, outputs: {output_dir: out%02d/}}\n", i, i)
	}
	dir := enginetest.StoragePipeline(t, steps, "  pvc: nfs\n")
	for _, kind := range []string{"workflow", "workflowtemplate"} {
		out := build(t, manifestcheck.Specs(dir), emit.Options{Kind: kind}).Must(t)
		var spec wfv1.WorkflowSpec
		switch run := out.Run.(type) {
		case *wfv1.Workflow:
			spec = run.Spec
		case *wfv1.WorkflowTemplate:
			spec = run.Spec
		}
		if spec.OnExit != "cleanup" || !slices.ContainsFunc(spec.Templates, func(t wfv1.Template) bool { return t.Name == "cleanup" }) {
			t.Errorf("%s: no exit handler: onExit %q", kind, spec.OnExit)
		}
	}
}
