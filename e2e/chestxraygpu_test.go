//go:build e2e

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// The chest X-ray runs ask for one GPU for the CNN's infer (resources.gpu
// of the step), from the DRA example driver of the real node, with
// examples/dra-gpu's platform gpu section: Argo's and the Job's pods
// claim it from the ResourceClaimTemplate the compiler makes, Tekton's
// task asks for the class's extended resource and the scheduler makes
// the claim. The node has no GPU; what the cube's code is given is the
// device the driver injects by CDI into its container's environment
// (GPU_DEVICE_<n>, cmd/dra-example-kubeletplugin/cdi.go of
// sigs.k8s.io/dra-example-driver v0.2.0). The cube's image has no
// recorder, so the test reads that environment from the container's
// spec in the node's containerd, which runc gives the cube's process
// (issue 50, point 3).

// chestXRayGPUStep is the step that asks for the GPU.
const chestXRayGPUStep = "infer"

// draGPU is the gpu section of examples/dra-gpu's platform: the real
// node's DeviceClass, its extended resource name, and the GPU nodes'
// label and taint.
func draGPU(t *testing.T) map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, "examples", draCompiled, "platform.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var plat struct {
		GPU map[string]any `json:"gpu"`
	}
	if err := yaml.Unmarshal(data, &plat); err != nil || plat.GPU["deviceClass"] != draDriver {
		t.Fatalf("%s's platform: gpu %v (%v), want deviceClass %s", draCompiled, plat.GPU, err, draDriver)
	}
	return plat.GPU
}

// checkCubeDevice checks that the claim of pod's GPU (name: the pod's
// name for it, or draExtendedResource) was allocated one device of the
// real node's driver, and that the device, and nothing else, is what
// the driver injected into the environment of the pod's container
// container, as the node's containerd holds it.
func (r *realRun) checkCubeDevice(t *testing.T, pod, container, name string, watch *claimWatch) {
	t.Helper()
	var p corev1.Pod
	if err := json.Unmarshal([]byte(r.c.must(t, "", "-n", r.ns, "get", "pod", pod, "-o", "json")), &p); err != nil {
		t.Fatal(err)
	}
	claims := podClaims(p, watch.stop(t))
	var id string
	for _, s := range p.Status.ContainerStatuses {
		if s.Name == container {
			id = strings.TrimPrefix(s.ContainerID, "containerd://")
		}
	}
	if id == "" {
		t.Fatalf("pod %s has no container %s with an ID", pod, container)
	}
	var info struct {
		Image string
		Spec  struct {
			Process struct{ Env []string }
		}
	}
	if err := json.Unmarshal([]byte(nodeCtr(t, "containers", "info", id)), &info); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	for _, kv := range info.Spec.Process.Env {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	claim, device := oneDevice(t, claims, name, injected(env))
	t.Logf("pod %s: claim %s allocated %s of %s; container %s (%s, the cube's own code) was given it: %s",
		pod, claim.Name, device, realNode, container, info.Image, strings.ReplaceAll(injected(env), "\n", " "))
}

// chestXRayPlatform is the platform of the chest X-ray runs on the
// claim: kubectl steps in kubectl, the workspace on chestXRayClaim, and
// the real node's GPUs by DRA (draGPU).
func chestXRayPlatform(t *testing.T, kubectl string) string {
	t.Helper()
	return cubePlatform(t, kubectl, map[string]any{"storage": map[string]any{"pvc": chestXRayClaim}, "gpu": draGPU(t)})
}
