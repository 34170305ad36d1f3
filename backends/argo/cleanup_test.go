package argo_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"

	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/internal/enginetest"
	"github.com/mlcube-compile/mlcube-compile/internal/manifestcheck"
)

// A run that fails, times out or is stopped deletes the jobs it created
// (an exit handler, which Argo runs on spec.shutdown: Stop), and each
// attempt of a distributed step first deletes what an earlier attempt
// left, waiting until it is gone, so two never run at once.
func TestArgoCleansUpJobs(t *testing.T) {
	for ex, kinds := range map[string]string{"resnet50-multinode": "mpijobs.kubeflow.org",
		"dask-benchmark": "daskjobs.kubernetes.dask.org", "dask-map": "jobsets.jobset.x-k8s.io"} {
		wf := workflow(t, build(t, manifestcheck.Specs(enginetest.Example(t, ex)), emit.Options{}))
		handler := wf.GetTemplateByName(wf.Spec.OnExit)
		if handler == nil || len(handler.Steps) != 1 {
			t.Fatalf("%s: no exit handler: onExit %q", ex, wf.Spec.OnExit)
		}
		i := slices.IndexFunc(handler.Steps[0].Steps, func(s wfv1.WorkflowStep) bool { return s.Name == "delete-jobs" })
		if i < 0 {
			t.Fatalf("%s: the exit handler has no step delete-jobs: %+v", ex, handler.Steps[0].Steps)
		}
		step := handler.Steps[0].Steps[i]
		if step.When != "{{workflow.status}} != Succeeded" {
			t.Errorf("%s: the exit handler runs when %q, want when the run did not succeed", ex, step.When)
		}
		del := wf.GetTemplateByName(step.Template).Resource
		if del == nil || del.Action != "delete" ||
			!slices.Equal(del.Flags, []string{kinds, "--selector=mlcube-compile/run={{workflow.name}}", "--wait=false"}) {
			t.Errorf("%s: the exit handler does not delete the run's %s: %+v", ex, kinds, del)
		}
		for _, task := range wf.Spec.Templates[0].DAG.Tasks {
			outer := wf.GetTemplateByName(task.Template)
			if len(outer.Steps) < 2 {
				t.Fatalf("%s: step %s is not a steps template that cleans before it runs", ex, task.Name)
			}
			clean := wf.GetTemplateByName(outer.Steps[0].Steps[0].Template).Resource
			want := []string{kinds, "--selector=mlcube-compile/run={{workflow.name}},mlcube-compile/step=" + task.Name,
				"--cascade=foreground", "--wait=true", "--timeout=10m"}
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
		if spec.OnExit != "cleanup" ||
			!slices.ContainsFunc(spec.Templates, func(t wfv1.Template) bool { return t.Name == "cleanup" }) {
			t.Errorf("%s: no exit handler: onExit %q", kind, spec.OnExit)
		}
	}
}

// Every run, of every kind, deletes its pods still Pending or Running
// when it did not succeed (an exit handler, which Argo runs on
// spec.shutdown: Stop): a stop signals each running container once and
// never again (workflow/controller/pod/queue.go, signalContainers), so a
// program that outlives that signal would hold its GPUs until it ended.
// The handler's own pods, labelled on-exit by Argo, are left alone; a
// successful run skips the step. --emit-rbac grants the deletion.
func TestArgoExitHandlerDeletesUnfinishedPods(t *testing.T) {
	want := []string{"pods", "--selector=workflows.argoproj.io/workflow={{workflow.name}},!workflows.argoproj.io/on-exit",
		"--field-selector=status.phase!=Succeeded,status.phase!=Failed", "--wait=false"}
	emitKinds(t, func(t *testing.T, kind, manifest string) {
		spec, rules := runSpec(t, manifest)
		handler := templateOf(spec, spec.OnExit)
		if handler == nil || len(handler.Steps) != 1 {
			t.Fatalf("no exit handler: onExit %q", spec.OnExit)
		}
		i := slices.IndexFunc(handler.Steps[0].Steps, func(s wfv1.WorkflowStep) bool { return s.Name == "delete-pods" })
		if i < 0 {
			t.Fatalf("the exit handler has no step delete-pods: %+v", handler.Steps[0].Steps)
		}
		step := handler.Steps[0].Steps[i]
		if step.When != "{{workflow.status}} != Succeeded" {
			t.Errorf("delete-pods runs when %q, want when the run did not succeed", step.When)
		}
		del := templateOf(spec, step.Template)
		if del == nil || del.Resource == nil || del.Resource.Action != "delete" || !slices.Equal(del.Resource.Flags, want) {
			t.Errorf("delete-pods does not delete the run's unfinished pods: %+v", del)
		}
		if rules != nil && !slices.ContainsFunc(rules, func(r rbacv1.PolicyRule) bool {
			return slices.Equal(r.APIGroups, []string{""}) && slices.Contains(r.Resources, "pods") &&
				slices.Equal(r.Verbs, []string{"delete", "list"})
		}) {
			t.Errorf("the Role lets the account neither list nor delete pods: %+v", rules)
		}
	})
}

// runSpec is the Workflow spec of an emitted manifest, whatever its kind,
// and the rules of its Role, nil when it has none.
func runSpec(t *testing.T, manifest string) (*wfv1.WorkflowSpec, []rbacv1.PolicyRule) {
	t.Helper()
	var spec *wfv1.WorkflowSpec
	var rules []rbacv1.PolicyRule
	for _, doc := range strings.Split(manifest, "\n---\n") {
		var head struct{ Kind string }
		if err := yaml.Unmarshal([]byte(doc), &head); err != nil {
			t.Fatal(err)
		}
		var err error
		switch head.Kind {
		case "Role":
			var role rbacv1.Role
			err = yaml.Unmarshal([]byte(doc), &role)
			rules = role.Rules
		case "Workflow", "WorkflowTemplate":
			var wf wfv1.Workflow
			err = yaml.Unmarshal([]byte(doc), &wf)
			spec = &wf.Spec
		case "CronWorkflow":
			var cron wfv1.CronWorkflow
			err = yaml.Unmarshal([]byte(doc), &cron)
			spec = &cron.Spec.WorkflowSpec
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if spec == nil {
		t.Fatalf("no Workflow, WorkflowTemplate or CronWorkflow in:\n%s", manifest)
	}
	return spec, rules
}

// templateOf is spec's template name, nil when it has none.
func templateOf(spec *wfv1.WorkflowSpec, name string) *wfv1.Template {
	i := slices.IndexFunc(spec.Templates, func(t wfv1.Template) bool { return t.Name == name })
	if i < 0 {
		return nil
	}
	return &spec.Templates[i]
}
