//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	tektonv1 "github.com/tektoncd/pipeline/pkg/apis/pipeline/v1"
)

// kueuePreemptPipeline runs examples/shared-gpu-queue's prepare outside
// any queue, then its finetune, in the platform's queue without retries:
// of its own, for 40 seconds.
const kueuePreemptPipeline = `name: kueue-preempt
cubes: {c: %s}
steps:
  prepare: {queue: "", resources: {gpu: 0}}
  finetune: {task: finetune, env: {MLCUBE_E2E_SLEEP: "40"}}
`

// compileQueued compiles kueuePreemptPipeline for backend on the real
// node, with the platform's lines extra after shared-gpu-queue's.
func compileQueued(t *testing.T, backend, extra string) []string {
	t.Helper()
	dir := t.TempDir()
	pipeline := filepath.Join(dir, "pipeline.yaml")
	if err := os.WriteFile(pipeline, fmt.Appendf(nil, kueuePreemptPipeline, sharedGPUQueue(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	image := realImage
	if backend == "tekton" {
		image = tektonImage
	}
	plat := realNodePlatform(t, filepath.Join(sharedGPUQueue(t), "platform.yaml"), image)
	if extra != "" {
		data, err := os.ReadFile(plat)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(plat, append(data, extra...), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, stderr, code := compileArgs(t, "mlcube-compile", "--backend", backend, "--task", pipeline, "--platform", plat)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	return strings.Split(strings.TrimSuffix(out, "\n"), "\n---\n")
}

// preempt deletes pod as Kueue's preemption does (Pod.Stop,
// pkg/controller/jobs/pod/pod_controller.go, v0.19.2): the condition
// TerminationTarget on its status, then a delete with the pod's own
// grace period.
func (c *cluster) preempt(t *testing.T, ns, pod string) {
	t.Helper()
	status := fmt.Sprintf(`{"status":{"conditions":[{"type":"TerminationTarget","status":"True","reason":"Preempted",`+
		`"message":"e2e: preempted","lastTransitionTime":%q}]}}`, time.Now().UTC().Format(time.RFC3339))
	c.must(t, "", "-n", ns, "patch", "pod", pod, "--subresource=status", "--type=strategic", "-p", status)
	c.must(t, "", "-n", ns, "delete", "pod", pod, "--wait=false")
}

// TestE2EKueuePreemptedArgoStepRetried runs kueuePreemptPipeline's
// workflow on the real node, with finetune queued in a ClusterQueue of
// one GPU, and preempts finetune's pod while its container runs. The
// compiled retry (retryStrategy with the expression that matches a
// deleted or killed pod) must try it again, through Kueue again, and the
// run succeed. The control, without the retry, as compiled before,
// ends with the run failed.
func TestE2EKueuePreemptedArgoStepRetried(t *testing.T) {
	c := e2eCluster(t)
	t.Parallel()
	const target = "finetune"
	for _, tc := range []struct {
		name    string
		control bool
	}{{"kueue-preempt", false}, {"kueue-preempt-control", true}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			docs := compileQueued(t, "argo", "")
			r := c.newRealRun(t, tc.name, docs, decodeWorkflow(t, docs[len(docs)-1]))
			c.kueueQueues(t, r.ns, 1, "team-a-gpu")
			tmpl := r.template(t, target)
			if s := tmpl.RetryStrategy; s == nil || s.Expression == "" || s.RetryPolicy != wfv1.RetryPolicyAlways {
				t.Fatalf("%s's retry strategy is %+v, want the preemption retry", target, s)
			}
			if tc.control {
				tmpl.RetryStrategy = nil
			}
			created := r.create(t)
			pod := r.runningPod(t, target, 5*time.Minute)
			node := target
			if !tc.control {
				node += "(0)"
			}
			r.nodeSettled(t, created, node)
			c.preempt(t, r.ns, pod)
			done := r.c.wait(t, r.ns, created, 6*time.Minute)
			if tc.control {
				if done.Status.Phase == wfv1.WorkflowSucceeded {
					t.Logf("control: %s Succeeded without a retry (Argo submitted the deleted pod again)\n%s", done.Name,
						nodeSummary(done))
					return
				}
				t.Logf("control: %s %s once %s's pod %s was preempted, with no retry:\n%s", done.Name, done.Status.Phase, target,
					pod, nodeSummary(done))
				return
			}
			attempts := retryAttempts(done, target)
			if done.Status.Phase != wfv1.WorkflowSucceeded || len(attempts) != 2 || attempts[0].Phase == wfv1.NodeSucceeded {
				t.Fatalf("phase %s, %d attempts of %s, want Succeeded after a second attempt\n%s", done.Status.Phase, len(attempts),
					target, nodeSummary(done))
			}
			again := podOfNode(t, c, r.ns, done.Name, attempts[1].Name)
			if w, ok := c.workloads(t, r.ns)["Pod/"+again]; !ok || w.at("Admitted").IsZero() {
				t.Errorf("the second attempt's pod %q: no Workload Kueue admitted", again)
			}
			t.Logf("%s: Succeeded on %s; %s's pod %s was preempted while it ran, and the retry ran it again in pod %s, which "+
				"Kueue admitted:\n%s", done.Name, realNode, target, pod, again, nodeSummary(done))
		})
	}
}

// podOfNode names the pod of workflow wf's node, by the annotation Argo
// gives each pod.
func podOfNode(t *testing.T, c *cluster, ns, wf, node string) string {
	t.Helper()
	out := c.must(t, "", "-n", ns, "get", "pods", "-l", "workflows.argoproj.io/workflow="+wf,
		"-o", `jsonpath={range .items[*]}{.metadata.name} `+
			`{.metadata.annotations.workflows\.argoproj\.io/node-name}{"\n"}{end}`)
	for _, line := range strings.Split(out, "\n") {
		if name, n, ok := strings.Cut(line, " "); ok && n == node {
			return name
		}
	}
	return ""
}

// TestE2EKueuePreemptedTektonStepRetried is the Argo test's twin on
// Tekton: finetune's task, queued without retries: of its own, gets the
// compiled retries, and after its pod is preempted Tekton runs it again
// in a TaskRun attempt of its own, whose pod Kueue admits again, and the
// PipelineRun succeeds. The control, without the retries, fails.
func TestE2EKueuePreemptedTektonStepRetried(t *testing.T) {
	c := e2eCluster(t)
	t.Parallel()
	for _, tc := range []struct {
		name    string
		control bool
	}{{"kueue-preempt", false}, {"kueue-preempt-control", true}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c.preemptTekton(t, tc.name, tc.control)
		})
	}
}

// preemptTekton runs TestE2EKueuePreemptedTektonStepRetried's PipelineRun
// name, without the compiled retries for the control.
func (c *cluster) preemptTekton(t *testing.T, name string, control bool) {
	const target = "finetune"
	r := c.newTektonRun(t, name, compileQueued(t, "tekton", ""), nil)
	c.kueueQueues(t, r.ns, 1, "team-a-gpu")
	for i, task := range r.pr.Spec.PipelineSpec.Tasks {
		if task.Name == target && task.Retries == 0 {
			t.Fatalf("%s has no retries", target)
		}
		if task.Name == target && control {
			r.pr.Spec.PipelineSpec.Tasks[i].Retries = 0
		}
	}
	r.create(t)
	pod := r.runningStep(t, target, 5*time.Minute)
	time.Sleep(5 * time.Second)
	c.preempt(t, r.ns, pod)
	done := r.waitDone(t, "pipelinerun.tekton.dev/"+r.pr.Name, 6*time.Minute)
	var tr tektonv1.TaskRun
	trName := strings.TrimSpace(c.must(t, "", "-n", r.ns, "get", "taskruns", "-l",
		"tekton.dev/pipelineTask="+target, "-o", "name"))
	if err := json.Unmarshal([]byte(c.must(t, "", "-n", r.ns, "get", trName, "-o", "json")), &tr); err != nil {
		t.Fatal(err)
	}
	ok := done.Status.GetCondition("Succeeded").IsTrue()
	if control {
		if ok {
			t.Fatalf("control: PipelineRun %s succeeded with %s's pod %s preempted and no retries", done.Name, target, pod)
		}
		cond := tr.Status.GetCondition("Succeeded")
		t.Logf("control: %s failed once %s's pod %s was preempted, with no retries: %s: %s", done.Name, target, pod,
			cond.Reason, cond.Message)
		return
	}
	if !ok || len(tr.Status.RetriesStatus) != 1 || tr.Status.PodName == pod {
		t.Fatalf("PipelineRun %s: %v; TaskRun %s: %d earlier attempts, pod %s (preempted %s)", done.Name,
			done.Status.GetCondition("Succeeded"), tr.Name, len(tr.Status.RetriesStatus), tr.Status.PodName, pod)
	}
	first := tr.Status.RetriesStatus[0].GetCondition("Succeeded")
	if w, admitted := c.workloads(t, r.ns)["Pod/"+tr.Status.PodName]; !admitted || w.at("Admitted").IsZero() {
		t.Errorf("the second attempt's pod %s: no Workload Kueue admitted", tr.Status.PodName)
	}
	t.Logf("%s: Succeeded on %s; %s's pod %s was preempted while it ran (attempt 1: %s: %s), and pod %s, which Kueue "+
		"admitted, ran it again", done.Name, realNode, target, pod, first.Reason, first.Message, tr.Status.PodName)
}

// runningStep waits until the step-main container of task's pod runs,
// and names the pod.
func (r *tektonRun) runningStep(t *testing.T, task string, timeout time.Duration) string {
	t.Helper()
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(time.Second) {
		out, _ := r.c.run("", "-n", r.ns, "get", "pods", "-l", "tekton.dev/pipelineTask="+task,
			"-o", `jsonpath={range .items[*]}{.metadata.name} `+
				`{.status.containerStatuses[?(@.name=="step-main")].state.running.startedAt}{"\n"}{end}`)
		for _, line := range strings.Split(out, "\n") {
			if f := strings.Fields(line); len(f) == 2 {
				return f[0]
			}
		}
	}
	t.Fatalf("no step of %s ran within %s", task, timeout)
	return ""
}

// waitDone waits for the PipelineRun created to finish.
func (r *tektonRun) waitDone(t *testing.T, created string, timeout time.Duration) *tektonv1.PipelineRun {
	t.Helper()
	for deadline := time.Now().Add(timeout); ; time.Sleep(time.Second) {
		var got tektonv1.PipelineRun
		if err := json.Unmarshal([]byte(r.c.must(t, "", "-n", r.ns, "get", created, "-o", "json")), &got); err != nil {
			t.Fatal(err)
		}
		if got.IsDone() {
			return &got
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not done after %s:\n%s", created, timeout,
				r.c.must(t, "", "-n", r.ns, "get", "taskruns,pods,workloads"))
		}
	}
}

// TestE2EKueuePreemptedArgoStepRetriedByKueue has Kueue itself preempt
// finetune: its ClusterQueue of one GPU preempts lower priorities
// (withinClusterQueue: LowerPriority), and while finetune runs at the
// platform's team-a-normal, a pod of one GPU at team-a-urgent is queued
// beside it. Kueue evicts finetune's Workload and deletes its pod
// (Pod.Stop); the compiled retry's pod waits in the queue until the
// urgent pod is done, then runs, and the run succeeds.
func TestE2EKueuePreemptedArgoStepRetriedByKueue(t *testing.T) {
	c := e2eCluster(t)
	t.Parallel()
	const target, name = "finetune", "kueue-preempt-real"
	docs := compileQueued(t, "argo", "")
	r := c.newRealRun(t, name, docs, decodeWorkflow(t, docs[len(docs)-1]))
	c.kueueQueues(t, r.ns, 1, "team-a-gpu")
	c.must(t, "", "patch", "clusterqueue", r.ns, "--type=merge", "-p",
		`{"spec":{"preemption":{"withinClusterQueue":"LowerPriority"}}}`)
	c.must(t, "", "-n", r.ns, "delete", "pod", "urgent", "--ignore-not-found", "--wait")
	created := r.create(t)
	pod := r.runningPod(t, target, 5*time.Minute)
	r.nodeSettled(t, created, target+"(0)")
	urgent := fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata:
  name: urgent
  namespace: %s
  labels: {kueue.x-k8s.io/queue-name: team-a-gpu, kueue.x-k8s.io/priority-class: team-a-urgent}
spec:
  restartPolicy: Never
  nodeSelector: {kubernetes.io/hostname: %s}
  tolerations: [{key: %s, operator: Exists, effect: NoSchedule}]
  containers:
  - name: main
    image: %s
    imagePullPolicy: Never
    command: [sh, -c, "sleep 10"]
    resources:
      limits: {cpu: 100m, memory: 64Mi, nvidia.com/gpu: "1"}
`, r.ns, realNode, realNodeTaint, realImage)
	c.must(t, urgent, "create", "-f", "-")
	done := r.c.wait(t, r.ns, created, 6*time.Minute)
	attempts := retryAttempts(done, target)
	if done.Status.Phase != wfv1.WorkflowSucceeded || len(attempts) != 2 || attempts[0].Phase == wfv1.NodeSucceeded {
		t.Fatalf("phase %s, %d attempts of %s, want Succeeded after a second attempt\n%s", done.Status.Phase, len(attempts),
			target, nodeSummary(done))
	}
	ended := c.jsonPath(t, r.ns, "pod/urgent", `{.status.containerStatuses[0].state.terminated.finishedAt}`)
	again := podOfNode(t, c, r.ns, done.Name, attempts[1].Name)
	admitted := c.workloads(t, r.ns)["Pod/"+again].at("Admitted")
	if end, err := time.Parse(time.RFC3339, ended); err != nil || admitted.Before(end.Add(-time.Second)) {
		t.Errorf("the retry's pod %s admitted at %s, before the urgent pod ended at %q", again, admitted, ended)
	}
	events, _ := c.run("", "-n", r.ns, "get", "events", "--field-selector", "reason=Preempted", "-o",
		"jsonpath={range .items[*]}{.involvedObject.kind}/{.involvedObject.name}: {.message}{\"\\n\"}{end}")
	t.Logf("%s: Succeeded on %s; Kueue preempted %s's pod %s for the urgent pod, which ended at %s; the retry's pod %s "+
		"was admitted at %s:\n%s\nKueue's events:\n%s", done.Name, realNode, target, pod, ended, again,
		admitted.Format(time.RFC3339), nodeSummary(done), events)
}
