package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	"sigs.k8s.io/yaml"
)

// A CronWorkflow run that Replace terminates skips its exit handler, so
// each run of such a cron first deletes, by label, the jobs of the
// cron's other runs; every step waits for that. Allow and Forbid never
// terminate a run, and add nothing.
func TestCronReplaceDeletesTheReplacedRunsJobs(t *testing.T) {
	dir := filepath.Join(repoRoot, "examples", "resnet50-multinode")
	for _, policy := range []string{"Replace", "Forbid"} {
		out, _ := compileDir(t, "argo", dir, "--kind", "cronworkflow", "--schedule", "* * * * *", "--concurrency-policy", policy)
		var cron wfv1.CronWorkflow
		if err := yaml.UnmarshalStrict([]byte(out[strings.LastIndex(out, "\n---\n")+1:]), &cron); err != nil {
			t.Fatal(err)
		}
		spec := cron.Spec.WorkflowSpec
		entry := spec.Templates[0]
		if entry.Name != spec.Entrypoint || entry.DAG == nil {
			t.Fatalf("%s: the first template is not the entry DAG", policy)
		}
		first := entry.DAG.Tasks[0]
		if policy != "Replace" {
			if first.Name == "delete-replaced-jobs" || strings.Contains(out, "mlcube-compile/cron-workflow") {
				t.Errorf("%s terminates no run, yet the cron deletes other runs' jobs:\n%s", policy, out)
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
		want := []string{"mpijobs.kubeflow.org", "--selector=mlcube-compile/cron-workflow=" + cron.Name + ",mlcube-compile/run!={{workflow.name}}", "--wait=true"}
		if del == nil || del.Resource == nil || del.Resource.Action != "delete" || !slices.Equal(del.Resource.Flags, want) {
			t.Errorf("the delete template %+v, want a resource delete with flags %q", del, want)
		}
		jobs := 0
		for _, tmpl := range spec.Templates {
			if tmpl.Resource != nil && strings.Contains(tmpl.Resource.Manifest, "kind: MPIJob") {
				jobs++
				if !strings.Contains(tmpl.Resource.Manifest, "mlcube-compile/cron-workflow: "+cron.Name) {
					t.Errorf("%s: the MPIJob lacks the cron's label:\n%s", tmpl.Name, tmpl.Resource.Manifest)
				}
			}
		}
		if jobs == 0 {
			t.Error("no MPIJob in the cron's runs")
		}
	}
}
