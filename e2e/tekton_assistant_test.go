//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tektoncd/pipeline/pkg/apis/pipeline/pod"
	tektonv1 "github.com/tektoncd/pipeline/pkg/apis/pipeline/v1"
	corev1 "k8s.io/api/core/v1"
)

// gpuNodeLabel marks the real node as the cluster's GPU node in
// TestE2ETektonAssistantPlacesGPUAndCPUSteps; no other test selects it.
const gpuNodeLabel = "e2e.mlcube-compile.io/gpu-node"

// TestE2ETektonAssistantPlacesGPUAndCPUSteps runs a CPU step and a GPU
// step that share a claim, with Tekton's affinity assistant on (the
// cluster keeps Tekton's default, coschedule: workspaces), unpinned: the
// GPU node (the real node, tainted) and CPU nodes (KWOK's, untainted) are
// both there. Every TaskRun that mounts the claim gets a required pod
// affinity to the assistant's pod, which places itself with the run's pod
// template alone (affinityAssistantStatefulSet in Tekton's
// pkg/reconciler/pipelinerun/affinity_assistant.go). The compiled run
// gives that template the GPU step's node selector and toleration, and
// both steps run on the GPU node. The control is the same run as the
// compiler emitted it before, the GPU step's scheduling in its own TaskRun
// spec: the assistant lands on a CPU node, and the GPU step can never
// schedule.
func TestE2ETektonAssistantPlacesGPUAndCPUSteps(t *testing.T) {
	c := e2eCluster(t)
	t.Parallel()
	c.fakeNode(t, "kwok-assistant-cpu", map[string]string{})
	c.labelRealNode(t, map[string]string{gpuNodeLabel: "true"})
	docs := compileAssistantPipeline(t)
	pr := decodePipelineRun(t, docs[len(docs)-1])
	tmpl := pr.Spec.TaskRunTemplate.PodTemplate
	if tmpl == nil || tmpl.NodeSelector[gpuNodeLabel] != "true" || len(tmpl.Tolerations) == 0 {
		t.Fatalf("the run's pod template %+v lacks the GPU step's node selector and toleration", tmpl)
	}

	t.Run("control", func(t *testing.T) {
		t.Parallel()
		r := c.newUnpinnedTektonRun(t, "assistant-control", docs, pr)
		// As before: the run's template keeps what both steps share
		// (nothing), the GPU step its own; the two steps start at once, so
		// that the GPU step's pod exists while the CPU step runs on.
		r.pr.Spec.TaskRunTemplate.PodTemplate = nil
		if slices.ContainsFunc(r.pr.Spec.TaskRunSpecs,
			func(s tektonv1.PipelineTaskRunSpec) bool { return s.PipelineTaskName == "finetune" }) {
			t.Fatal("finetune has a TaskRun spec of its own, which the control would replace")
		}
		r.pr.Spec.TaskRunSpecs = append(r.pr.Spec.TaskRunSpecs, tektonv1.PipelineTaskRunSpec{
			PipelineTaskName: "finetune",
			PodTemplate:      &pod.PodTemplate{NodeSelector: tmpl.NodeSelector, Tolerations: tmpl.Tolerations},
		})
		for i := range r.pr.Spec.PipelineSpec.Tasks {
			r.pr.Spec.PipelineSpec.Tasks[i].RunAfter = nil
		}
		r.create(t)
		defer r.c.must(t, "", "-n", r.ns, "delete", "pipelinerun", r.pr.Name, "--wait=false")
		assistant := r.waitForPod(t, "app.kubernetes.io/component=affinity-assistant",
			func(p *corev1.Pod) bool { return p.Spec.NodeName != "" })
		gpu := r.waitForPod(t, "tekton.dev/pipelineTask=finetune", func(p *corev1.Pod) bool { return unschedulable(p) != "" })
		if assistant.Spec.NodeName == realNode {
			t.Fatalf("the control's assistant is on the GPU node %s: the control shows nothing", realNode)
		}
		t.Logf("control: the assistant is on %s, and the GPU step's pod %s cannot schedule: %s", assistant.Spec.NodeName,
			gpu.Name, unschedulable(gpu))
	})

	t.Run("compiled", func(t *testing.T) {
		t.Parallel()
		r := c.newUnpinnedTektonRun(t, "assistant", docs, pr)
		done := r.runSucceeded(t, 5*time.Minute, "taskruns,pods", "-o", "wide")
		var nodes []string
		for task, podName := range r.tektonPods(t) {
			if task == "" {
				continue // the affinity assistant's pod
			}
			node := strings.TrimSpace(r.c.must(t, "", "-n", r.ns, "get", "pod", podName, "-o", "jsonpath={.spec.nodeName}"))
			if node != realNode {
				t.Errorf("task %s ran on %s, not the GPU node", task, node)
			}
			nodes = append(nodes, task+" on "+node)
		}
		t.Logf("%s: Succeeded, %s", done.Name, strings.Join(nodes, ", "))
	})
}

// compileAssistantPipeline compiles, for the real node's image, a CPU
// step and a GPU step of the shared-gpu-queue cube that share the claim,
// on a platform whose GPU nodes are the real node (its label and taint).
func compileAssistantPipeline(t *testing.T) []string {
	t.Helper()
	dir := t.TempDir()
	cube, err := filepath.Abs(filepath.Join(repoRoot, "examples", "shared-gpu-queue"))
	if err != nil {
		t.Fatal(err)
	}
	pipeline := fmt.Sprintf(`name: assistant
cubes:
  cube: %s
steps:
  prepare: {cube: cube, task: prepare, resources: {cpu: 100m, memory: 64Mi, gpu: 0}}
  finetune: {cube: cube, task: finetune, resources: {cpu: 100m, memory: 64Mi, gpu: 1}}
`, cube)
	platform := fmt.Sprintf(`gpu:
  resource: nvidia.com/gpu
  nodeSelector: {%s: "true"}
  tolerations: [{key: %s, operator: Exists}]
storage: {pvc: assistant-workspace}
`, gpuNodeLabel, realNodeTaint)
	for name, text := range map[string]string{"pipeline.yaml": pipeline, "platform.yaml": platform} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	plat := realNodePlatform(t, filepath.Join(dir, "platform.yaml"), tektonImage)
	out, stderr, code := compileArgs(t, "mlcube-compile", "--backend", "tekton", "-t", filepath.Join(dir, "pipeline.yaml"),
		"--platform", plat)
	if code != 0 {
		t.Fatalf("compile: exit %d: %s", code, stderr)
	}
	return strings.Split(strings.TrimSuffix(out, "\n"), "\n---\n")
}

// create creates the PipelineRun without waiting for it.
func (r *tektonRun) create(t *testing.T) {
	t.Helper()
	manifest, err := json.Marshal(r.pr)
	if err != nil {
		t.Fatal(err)
	}
	r.c.must(t, string(manifest), "create", "-f", "-")
}

// waitForPod waits up to two minutes for a pod of the run with the label
// selector to satisfy ok, and returns it.
func (r *tektonRun) waitForPod(t *testing.T, selector string, ok func(*corev1.Pod) bool) *corev1.Pod {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(time.Second) {
		var list corev1.PodList
		out := r.c.must(t, "", "-n", r.ns, "get", "pods", "-l", selector, "-o", "json")
		if err := json.Unmarshal([]byte(out), &list); err != nil {
			t.Fatal(err)
		}
		for i := range list.Items {
			if ok(&list.Items[i]) {
				return &list.Items[i]
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no pod %s as wanted after 2 minutes:\n%s", selector,
				r.c.must(t, "", "-n", r.ns, "get", "pods", "-o", "wide"))
		}
	}
}

// unschedulable is the scheduler's message for a pod it cannot place,
// or empty.
func unschedulable(p *corev1.Pod) string {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
			return c.Message
		}
	}
	return ""
}
