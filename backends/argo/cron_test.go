package argo_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"

	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/compiler"
	"github.com/mlcube-compile/mlcube-compile/internal/enginetest"
	"github.com/mlcube-compile/mlcube-compile/internal/manifestcheck"
)

// cronWorkflow compiles opts as a CronWorkflow.
func cronWorkflow(t *testing.T, opts compiler.Options) (*wfv1.CronWorkflow, enginetest.Emitted) {
	t.Helper()
	out := build(t, opts, emit.Options{Kind: "cronworkflow"}).Must(t)
	c, ok := out.Run.(*wfv1.CronWorkflow)
	if !ok {
		t.Fatalf("the run is a %T, want a CronWorkflow", out.Run)
	}
	return c, out
}

// A CronWorkflow run that Replace terminates skips its exit handler, so
// each run of such a cron first deletes, by label, the jobs of the
// cron's other runs; every step waits for that. Allow and Forbid never
// terminate a run, and add nothing.
func TestCronReplaceDeletesTheReplacedRunsJobs(t *testing.T) {
	for _, policy := range []string{"Replace", "Forbid"} {
		opts := manifestcheck.Specs(enginetest.Example(t, "resnet50-multinode"))
		opts.Schedule = compiler.ScheduleOptions{Cron: []string{"* * * * *"}, ConcurrencyPolicy: policy}
		cron, out := cronWorkflow(t, opts)
		spec := cron.Spec.WorkflowSpec
		entry := spec.Templates[0]
		if entry.Name != spec.Entrypoint || entry.DAG == nil {
			t.Fatalf("%s: the first template is not the entry DAG", policy)
		}
		first := entry.DAG.Tasks[0]
		if policy != "Replace" {
			if yaml := out.YAML(t); first.Name == "delete-replaced-jobs" ||
				strings.Contains(yaml, "mlcube-compile/cron-workflow") {
				t.Errorf("%s terminates no run, yet the cron deletes other runs' jobs:\n%s", policy, yaml)
			}
			continue
		}
		if first.Name != "delete-replaced-jobs" {
			t.Fatalf("the first task is %s, want delete-replaced-jobs", first.Name)
		}
		for _, task := range entry.DAG.Tasks[1:] {
			if len(task.Dependencies) == 0 {
				t.Errorf("task %s starts before the replaced run's jobs are gone", task.Name)
			}
		}
		var del *wfv1.Template
		for i := range spec.Templates {
			if spec.Templates[i].Name == first.Template {
				del = &spec.Templates[i]
			}
		}
		want := []string{"mpijobs.kubeflow.org",
			"--selector=mlcube-compile/cron-workflow=" + cron.Name + ",mlcube-compile/run!={{workflow.name}}", "--wait=true"}
		if del == nil || del.Resource == nil || del.Resource.Action != "delete" || !slices.Equal(del.Resource.Flags, want) {
			t.Errorf("the delete template %+v, want a resource delete with flags %q", del, want)
		}
		jobs := 0
		for _, job := range enginetest.Jobs(t, cron) {
			if job["kind"] != "MPIJob" {
				continue
			}
			jobs++
			labels, _ := job["metadata"].(map[string]any)["labels"].(map[string]any)
			if labels["mlcube-compile/cron-workflow"] != cron.Name {
				t.Errorf("the MPIJob lacks the cron's label: %v", labels)
			}
		}
		if jobs == 0 {
			t.Error("no MPIJob in the cron's runs")
		}
	}
}

// A CronWorkflow whose runs share a fixed claim does not let them overlap
// unless the schedule says so.
func TestCronOverFixedClaimForbidsOverlap(t *testing.T) {
	for platform, want := range map[string]string{"storage: {pvc: data}\n": "Forbid", "storage: {size: 1Gi}\n": "",
		"storage: {pvc: data}\nnamespace: x\n": "Forbid"} {
		dir := enginetest.WriteFiles(t, map[string]string{
			"mlcube.yaml":   enginetest.DemoCube,
			"platform.yaml": platform,
			"pipeline.yaml": "schedule: '@daily'\nsteps:\n  train: {task: train}\n",
		})
		cron, _ := cronWorkflow(t, compiler.Options{MLCube: dir, Task: filepath.Join(dir, "pipeline.yaml"),
			Platform: filepath.Join(dir, "platform.yaml")})
		if got := string(cron.Spec.ConcurrencyPolicy); got != want {
			t.Errorf("%q: concurrencyPolicy %q, want %q", platform, got, want)
		}
	}
	dir := enginetest.WriteFiles(t, map[string]string{"mlcube.yaml": enginetest.DemoCube,
		"pipeline.yaml": "schedule: {cron: '@daily', concurrencyPolicy: Allow}\nsteps:\n  train: {task: train}\n"})
	cron, _ := cronWorkflow(t, compiler.Options{MLCube: dir, Task: filepath.Join(dir, "pipeline.yaml")})
	if cron.Spec.ConcurrencyPolicy != wfv1.AllowConcurrent {
		t.Errorf("a written concurrencyPolicy is kept: %q", cron.Spec.ConcurrencyPolicy)
	}
}
