//go:build e2e

package e2e

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// TestE2ECronReplaceLeavesNoMPIJob runs resnet50-multinode's CronWorkflow
// (every minute, concurrencyPolicy Replace) on the real node, with a
// launcher that sleeps, so that each run is still going when the next
// starts. Argo's cron controller then terminates it (util.TerminateWorkflow
// from terminateOutstandingWorkflows in workflow/cron/operator.go), which
// skips its exit handler, and its
// Workflow stays in the cron's history, so neither the exit handler nor
// the owner reference deletes its MPIJob. The compiled run's first task
// deletes the MPIJobs of the cron's other runs: the replaced run's goes.
// The control, the same cron without that task, leaves it running beside
// the next run's.
func TestE2ECronReplaceLeavesNoMPIJob(t *testing.T) {
	c := e2eCluster(t)
	t.Parallel()
	docs := compileCronForRealNode(t, "resnet50-multinode")
	for _, tc := range []struct {
		name    string
		control bool
	}{{"cron-replace", false}, {"cron-replace-control", true}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var cron wfv1.CronWorkflow
			if err := yaml.UnmarshalStrict([]byte(docs[len(docs)-1]), &cron); err != nil {
				t.Fatal(err)
			}
			r := c.newRealRun(t, tc.name, append(slices.Clone(docs[:len(docs)-1]), cronRun(t, &cron)), nil)
			r.pinJobs(t)
			sleepingJobs(t, r.wf)
			if tc.control {
				withoutTask(t, r.wf, "delete-replaced-jobs")
			}
			cron.ObjectMeta = metav1.ObjectMeta{Name: tc.name, Namespace: r.ns, Labels: cron.Labels}
			cron.Spec.WorkflowSpec = r.wf.Spec
			cron.Spec.Schedules = []string{"* * * * *"}
			manifest, err := yaml.Marshal(&cron)
			if err != nil {
				t.Fatal(err)
			}
			c.must(t, "", "-n", r.ns, "delete", "cronworkflow", tc.name, "--ignore-not-found")
			c.must(t, string(manifest), "create", "-f", "-")
			defer func() {
				c.must(t, "", "-n", r.ns, "delete", "cronworkflow", tc.name, "--wait=false")
				c.must(t, "", "-n", r.ns, "delete", "workflows,mpijobs", "--all", "--wait=false")
			}()
			first := r.jobRuns(t, 3*time.Minute, func([]string) bool { return true })[0]
			t.Logf("%s: the first run %s created its MPIJob", tc.name, first)
			// The next run creates its MPIJob after its first task, which
			// in the compiled run deletes the replaced run's.
			runs := r.jobRuns(t, 3*time.Minute, func(runs []string) bool {
				return slices.ContainsFunc(runs, func(run string) bool { return run > first })
			})
			if tc.control {
				if !slices.Contains(runs, first) {
					t.Fatalf("control: the replaced run %s's MPIJob is gone (runs with MPIJobs: %v): the control "+
						"shows nothing", first, runs)
				}
				t.Logf("control: the next run's MPIJob is there, and the replaced run %s's still runs beside it: %v", first, runs)
				return
			}
			if slices.Contains(runs, first) {
				t.Fatalf("the next run created its MPIJob, and the replaced run %s's is still there: %v", first, runs)
			}
			t.Logf("the replaced run %s left no MPIJob; runs with MPIJobs now: %v", first, runs)
		})
	}
}

// compileCronForRealNode compiles an example as a CronWorkflow whose
// concurrency policy is Replace, on the real node's platform.
func compileCronForRealNode(t *testing.T, example string) []string {
	t.Helper()
	args := exampleArgs(filepath.Join(repoRoot, "examples", example))
	i := slices.Index(args, "--platform")
	if i < 0 {
		t.Fatalf("%s has no platform", example)
	}
	args[i+1] = realNodePlatform(t, args[i+1], realImage)
	out, stderr, code := compileArgs(t, append([]string{"mlcube-compile", "--backend", "argo", "--kind", "cronworkflow",
		"--schedule", "* * * * *", "--concurrency-policy", "Replace"}, args...)...)
	if code != 0 {
		t.Fatalf("compile: exit %d: %s", code, stderr)
	}
	return strings.Split(strings.TrimSuffix(out, "\n"), "\n---\n")
}

// cronRun is a Workflow of the cron's spec, which newRealRun prepares
// for the real node as it would a run.
func cronRun(t *testing.T, cron *wfv1.CronWorkflow) string {
	t.Helper()
	wf := wfv1.Workflow{
		TypeMeta:   metav1.TypeMeta{APIVersion: "argoproj.io/v1alpha1", Kind: "Workflow"},
		ObjectMeta: metav1.ObjectMeta{Name: cron.Name, Namespace: cron.Namespace},
		Spec:       cron.Spec.WorkflowSpec,
	}
	out, err := yaml.Marshal(&wf)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// sleepingJobs makes each MPIJob's launcher sleep, and asks for no GPUs,
// so that its run goes on until it is replaced without holding GPUs that
// the suite's other runs need.
func sleepingJobs(t *testing.T, wf *wfv1.Workflow) {
	t.Helper()
	for i := range wf.Spec.Templates {
		res := wf.Spec.Templates[i].Resource
		if res == nil || res.Action != "create" || !strings.Contains(res.Manifest, `"MPIJob"`) {
			continue
		}
		res.Manifest = editJob(t, res.Manifest, func(job map[string]any) {
			replicaContainer(job, "Launcher")["command"] = []any{"sleep", "600"}
			for _, replica := range []string{"Launcher", "Worker"} {
				resources, _ := replicaContainer(job, replica)["resources"].(map[string]any)
				for _, list := range resources {
					for name := range list.(map[string]any) {
						if strings.Contains(name, "gpu") {
							delete(list.(map[string]any), name)
						}
					}
				}
			}
		})
	}
}

// withoutTask removes a task from the entry DAG, and every dependency on it.
func withoutTask(t *testing.T, wf *wfv1.Workflow, name string) {
	t.Helper()
	dag := entryDAG(t, wf)
	i := slices.IndexFunc(dag.Tasks, func(task wfv1.DAGTask) bool { return task.Name == name })
	if i < 0 {
		t.Fatalf("no task %s", name)
	}
	dag.Tasks = slices.Delete(dag.Tasks, i, i+1)
	for j := range dag.Tasks {
		dag.Tasks[j].Dependencies = slices.DeleteFunc(dag.Tasks[j].Dependencies, func(d string) bool { return d == name })
	}
}

// runsWithJobs names the runs that have an MPIJob in the run's namespace,
// sorted.
func (r *realRun) runsWithJobs(t *testing.T) []string {
	t.Helper()
	out := r.c.must(t, "", "-n", r.ns, "get", "mpijobs", "-o",
		`jsonpath={range .items[*]}{.metadata.labels.mlcube-compile/run}{"\n"}{end}`)
	runs := strings.Fields(out)
	slices.Sort(runs)
	return slices.Compact(runs)
}

// jobRuns waits until some runs have MPIJobs and ok holds of their
// names, sorted as they started (the cron names each run after its time),
// and returns them.
func (r *realRun) jobRuns(t *testing.T, timeout time.Duration, ok func([]string) bool) []string {
	t.Helper()
	var runs []string
	if !waitUntil(timeout, func() bool { runs = r.runsWithJobs(t); return len(runs) > 0 && ok(runs) }) {
		t.Fatalf("runs with MPIJobs after %s: %v\n%s", timeout, runs,
			r.c.must(t, "", "-n", r.ns, "get", "workflows,mpijobs,pods"))
	}
	return runs
}
