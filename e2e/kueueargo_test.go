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
)

// kueueTwoGPUPipeline runs examples/shared-gpu-queue's prepare outside any
// queue, then two fine-tuning steps that may run at once, each asking one
// GPU in the platform's queue; each sleeps 8 seconds in its container.
const kueueTwoGPUPipeline = `name: kueue-two-gpu
cubes: {c: %s}
steps:
  prepare: {queue: "", resources: {gpu: 0}}
  finetune-a: {task: finetune, outputs: {model_dir: a/}, env: {MLCUBE_E2E_SLEEP: "8"}}
  finetune-b: {task: finetune, outputs: {model_dir: b/}, env: {MLCUBE_E2E_SLEEP: "8"}}
`

// TestE2EKueueRunsArgoGPUStepsInTurn runs kueueTwoGPUPipeline's workflow
// on the real node, in a namespace whose ClusterQueue holds one GPU: the
// node has 8, so only Kueue keeps the two fine-tuning steps apart. Each
// of their pods must have been held by Kueue's scheduling gate and
// admitted as a Workload of its own (Kueue's pod integration), the two
// must run one after the other rather than fail, and the workflow must
// succeed. Without the queue label (E2E_KUEUE_STRIP_LABEL=1) they run at
// once, and it fails.
func TestE2EKueueRunsArgoGPUStepsInTurn(t *testing.T) {
	c := e2eCluster(t)
	t.Parallel()
	dir := t.TempDir()
	pipeline := filepath.Join(dir, "pipeline.yaml")
	if err := os.WriteFile(pipeline, fmt.Appendf(nil, kueueTwoGPUPipeline, sharedGPUQueue(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	plat := realNodePlatform(t, filepath.Join(sharedGPUQueue(t), "platform.yaml"), realImage)
	out, stderr, code := compileArgs(t, "mlcube-compile", "--backend", "argo", "--task", pipeline, "--platform", plat)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	docs := strings.Split(strings.TrimSuffix(out, "\n"), "\n---\n")
	want := decodeWorkflow(t, docs[len(docs)-1])
	r := c.newRealRun(t, "kueue-two-gpu", docs, want)
	c.kueueQueues(t, r.ns, 1, "team-a-gpu")
	for i := range r.wf.Spec.Templates {
		if kueueStripLabel {
			delete(r.wf.Spec.Templates[i].Metadata.Labels, kueueQueueLabel)
		}
	}
	done := r.succeed(t, 5*time.Minute)
	steps := c.stepPods(t, r.ns, done.Name)
	var tl timeline
	workloads := c.workloads(t, r.ns)
	for _, task := range []string{"prepare", "finetune-a", "finetune-b"} {
		p := steps[task]
		w, queued := workloads["Pod/"+p.name]
		if queued != (task != "prepare") {
			t.Errorf("task %s: pod %s has a Workload: %v, want %v", task, p.name, queued, task != "prepare")
		}
		tl.add(p.created, "%s: pod %s created", task, p.name)
		if queued {
			tl.add(w.at("Admitted"), "%s: admitted by Kueue (Workload %s), its gate removed", task, w.Metadata.Name)
		}
		tl.add(p.started, "%s: its container starts", task)
		tl.add(p.finished, "%s: its container ends", task)
	}
	a, b := steps["finetune-a"], steps["finetune-b"]
	if b.started.Before(a.started) {
		a, b = b, a
	}
	if b.started.Before(a.finished) {
		t.Errorf("the fine-tuning steps ran at once: one from %s to %s, the other from %s to %s",
			a.started.Format(time.TimeOnly), a.finished.Format(time.TimeOnly), b.started.Format(time.TimeOnly),
			b.finished.Format(time.TimeOnly))
	}
	t.Logf("%s: Succeeded on %s; ClusterQueue %s holds 1 GPU:\n%s", done.Name, realNode, r.ns, tl)
}

// stepPod is when one step's pod was made and its main container ran.
type stepPod struct {
	name                       string
	created, started, finished time.Time
}

// stepPods returns the pods of workflow wf by task name.
func (c *cluster) stepPods(t *testing.T, ns, wf string) map[string]stepPod {
	t.Helper()
	var list struct {
		Items []struct {
			Metadata struct {
				Name              string
				CreationTimestamp time.Time
				Annotations       map[string]string
			}
			Status struct {
				ContainerStatuses []struct {
					Name  string
					State struct {
						Terminated *struct{ StartedAt, FinishedAt time.Time }
					}
				}
			}
		}
	}
	out := c.must(t, "", "-n", ns, "get", "pods", "-l", "workflows.argoproj.io/workflow="+wf, "-o", "json")
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatal(err)
	}
	pods := map[string]stepPod{}
	for _, p := range list.Items {
		// A queued step is retried on preemption: its pod's node is
		// the attempt, TASK(0).
		task := strings.TrimPrefix(p.Metadata.Annotations["workflows.argoproj.io/node-name"], wf+".")
		task, _, _ = strings.Cut(task, "(")
		sp := stepPod{name: p.Metadata.Name, created: p.Metadata.CreationTimestamp}
		for _, cs := range p.Status.ContainerStatuses {
			if cs.Name == "main" && cs.State.Terminated != nil {
				sp.started, sp.finished = cs.State.Terminated.StartedAt, cs.State.Terminated.FinishedAt
			}
		}
		pods[task] = sp
	}
	return pods
}
