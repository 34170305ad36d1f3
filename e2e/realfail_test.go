//go:build e2e

package e2e

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// realRunOf prepares a run of an example's Argo golden file on the real
// node, as TestE2EArgoOnRealNode does, named NAME.
func (c *cluster) realRunOf(t *testing.T, example, name string) *realRun {
	t.Helper()
	golden := goldenDocuments(t, filepath.Join(repoRoot, "testdata", "golden", "argo", example+".yaml"))
	want := decodeWorkflow(t, golden[len(golden)-1])
	docs := compileForRealNode(t, filepath.Join(repoRoot, "examples", example), "argo", realImage)
	return c.newRealRun(t, name, docs, want)
}

// template is the submitted workflow's template NAME.
func (r *realRun) template(t *testing.T, name string) *wfv1.Template {
	t.Helper()
	i := slices.IndexFunc(r.wf.Spec.Templates, func(tmpl wfv1.Template) bool { return tmpl.Name == name })
	if i < 0 {
		t.Fatalf("no template %s", name)
	}
	return &r.wf.Spec.Templates[i]
}

// setEnv gives a template's container one more variable (fault injection
// for the image's recorder: MLCUBE_E2E_EXIT, MLCUBE_E2E_SLEEP).
func (r *realRun) setEnv(t *testing.T, template, name, value string) {
	t.Helper()
	c := r.template(t, template).Container
	if c == nil {
		t.Fatalf("template %s has no container", template)
	}
	c.Env = append(c.Env, corev1.EnvVar{Name: name, Value: value})
}

// runningPod waits until the main container of one of task's pods runs,
// and names that pod.
func (r *realRun) runningPod(t *testing.T, task string, timeout time.Duration) string {
	t.Helper()
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(time.Second) {
		out, _ := r.c.run("", "-n", r.ns, "get", "pods", "-l", "workflows.argoproj.io/workflow="+r.wf.Name,
			"-o", `jsonpath={range .items[*]}{.metadata.name} `+
				`{.status.containerStatuses[?(@.name=="main")].state.running.startedAt}{"\n"}{end}`)
		for _, line := range strings.Split(out, "\n") {
			if f := strings.Fields(line); len(f) == 2 && strings.Contains(f[0], "-"+task+"-") {
				return f[0]
			}
		}
	}
	t.Fatalf("no container of %s ran within %s", task, timeout)
	return ""
}

// shortBackoff waits 2 seconds between a template's retries, not the
// golden file's backoff: what the tests check is which attempts ran.
func (r *realRun) shortBackoff(t *testing.T, template string) {
	t.Helper()
	s := r.template(t, template).RetryStrategy
	if s == nil || s.Backoff == nil {
		t.Fatalf("template %s has no retry backoff", template)
	}
	s.Backoff.Duration = "2s"
}

func (r *realRun) create(t *testing.T) string {
	t.Helper()
	manifest, err := yaml.Marshal(r.wf)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(r.c.must(t, string(manifest), "create", "-o", "name", "-f", "-"))
}

// TestE2ERealNodeRetriesThenFails makes train of two-cube-pipeline exit 3
// on the real node: Argo must run it retryStrategy.limit+1 times, each a
// real container that ran (it left its record) and exited 3, then fail the
// run with nothing after train run.
func TestE2ERealNodeRetriesThenFails(t *testing.T) {
	c := e2eCluster(t)
	t.Parallel()
	r := c.realRunOf(t, "two-cube-pipeline", "retries")
	const target = "train"
	tmpl := r.golden.GetTemplateByName(target)
	if tmpl.RetryStrategy == nil {
		t.Fatalf("%s has no retry strategy in the golden file", target)
	}
	limit := tmpl.RetryStrategy.Limit.IntValue()
	r.setEnv(t, target, "MLCUBE_E2E_EXIT", "3")
	r.shortBackoff(t, target)
	done := r.c.wait(t, r.ns, r.create(t), 5*time.Minute)
	if done.Status.Phase != wfv1.WorkflowFailed {
		t.Fatalf("phase %s, want Failed\n%s", done.Status.Phase, nodeSummary(done))
	}
	attempts := retryAttempts(done, target)
	if len(attempts) != limit+1 {
		t.Errorf("%s ran %d times, want %d\n%s", target, len(attempts), limit+1, nodeSummary(done))
	}
	for _, a := range attempts {
		if a.Phase != wfv1.NodeFailed || !strings.Contains(a.Message, "exit code 3") {
			t.Errorf("attempt %s: %s %q, want Failed with exit code 3", a.DisplayName, a.Phase, a.Message)
		}
	}
	ran := 0
	for _, rec := range r.records(t) {
		if strings.Contains(rec.Pod, "-"+target+"-") {
			ran++
		}
	}
	if ran != limit+1 {
		t.Errorf("%d containers of %s left a record, want %d: each attempt is a container that ran", ran, target, limit+1)
	}
	dag := entryDAG(t, r.golden)
	after := downstream(dag, target)
	for task := range after {
		if podsOf(done, task) > 0 {
			t.Errorf("task %s has pods, but runs after the failed %s", task, target)
		}
	}
	t.Logf("%s: Failed after %d real attempts of %s (exit code 3); %v not run", done.Name, len(attempts), target,
		slices.Sorted(maps.Keys(after)))
}

// TestE2ERealNodeStopKillsPods stops a run of mnist (spec.shutdown: Stop,
// as `argo stop` does) while its first step's container runs: the
// container must be killed, not left to run, within stopBound of the
// stop, and the run end. Argo signals the container once; if that signal
// is lost (a late or failed exec on a loaded node), the run's exit
// handler deletes the pod (TestE2ERealNodeStopDeletesPods). `argo
// terminate` skips exit handlers, so it gets Argo's one signal alone.
func TestE2ERealNodeStopKillsPods(t *testing.T) {
	c := e2eCluster(t)
	t.Parallel()
	r := c.realRunOf(t, "mnist", "stop")
	r.setEnv(t, "download", "MLCUBE_E2E_SLEEP", "600")
	created := r.create(t)
	pod := r.runningPod(t, "download", 3*time.Minute)
	r.c.must(t, "", "-n", r.ns, "patch", created, "--type=merge", "-p", `{"spec":{"shutdown":"Stop"}}`)
	stopped := time.Now()
	done := r.c.wait(t, r.ns, created, 2*time.Minute)
	if done.Status.Phase == wfv1.WorkflowSucceeded {
		t.Fatalf("a stopped run Succeeded")
	}
	if phase := r.podState(t, pod, stopped.Add(stopBound)); phase == string(corev1.PodRunning) ||
		phase == string(corev1.PodPending) {
		t.Fatalf("pod %s still %s %s after the run was stopped (bound %s)", pod, phase,
			time.Since(stopped).Round(time.Second), stopBound)
	}
	t.Logf("%s: %s; its running pod %s stopped %s after spec.shutdown (its container slept 600s)", done.Name,
		done.Status.Phase, pod, time.Since(stopped).Round(time.Second))
}
