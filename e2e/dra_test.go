//go:build e2e

package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// Dynamic Resource Allocation on the real node (scripts/e2e/dra.sh): the
// DRA example driver's kubelet plugin publishes simulated GPUs gpu-0,
// gpu-1, ... of driver draDriver in the pool named after the node; the
// DeviceClass draDriver selects them all and maps draExtendedResource to
// them. For each container, the driver's CDI spec, which the node's
// containerd applies, sets GPU_DEVICE_<n>=gpu-<n> with its claim's UID and
// sharing settings for each device, and DRA_RESOURCE_DRIVER_NAME and
// KUBERNETES_NODE_NAME (cmd/dra-example-kubeletplugin/{state,cdi}.go of
// sigs.k8s.io/dra-example-driver v0.2.0).
const (
	draDriver           = "gpu.example.com" // versions.sh's DRA_DRIVER
	draExtendedResource = "example.com/gpu" // versions.sh's DRA_EXTENDED_RESOURCE
	// draEnvScript prints what the driver injects, one variable a line.
	draEnvScript = `env | grep -E '^(GPU_DEVICE_|DRA_RESOURCE_DRIVER_NAME=|KUBERNETES_NODE_NAME=)' | LC_ALL=C sort`
)

// draResult is what became of a pod with DRA devices: the pod as it
// ended, its claims as they were allocated (by the pod's name for each
// claim, or draExtendedResource for the claim the scheduler made for its
// extended resources), and each container's log.
type draResult struct {
	pod    corev1.Pod
	claims map[string]resourcev1.ResourceClaim
	logs   map[string]string
}

// runDRAPod creates docs in namespace ns (ResourceClaimTemplates and
// ResourceClaims, then exactly one Pod, as YAML or JSON) with the pod
// tolerating the real node's taint, and waits for the pod to end. A
// claim made from a template is deleted once its pod is done
// (pkg/controller/resourceclaim/controller.go), so every claim of the
// namespace is watched from before the pod is created, and the result
// holds each claim's last allocated state. It fails unless the pod
// succeeded. Whatever a compiled manifest holds besides the toleration
// is left as it is: the lead's compiled pods can go through here too.
func (c *cluster) runDRAPod(t *testing.T, ns string, docs []string) draResult {
	t.Helper()
	c.namespace(t, ns)
	var pod corev1.Pod
	var others []string
	for _, doc := range docs {
		var meta struct{ Kind string }
		if err := yaml.Unmarshal([]byte(doc), &meta); err != nil {
			t.Fatal(err)
		}
		if meta.Kind != "Pod" {
			others = append(others, doc)
			continue
		}
		if pod.Name != "" {
			t.Fatal("runDRAPod: more than one Pod")
		}
		if err := yaml.Unmarshal([]byte(doc), &pod); err != nil {
			t.Fatal(err)
		}
	}
	if pod.Name == "" {
		t.Fatal("runDRAPod: no Pod")
	}
	pod.Namespace = ns
	pod.Spec.Tolerations = append(pod.Spec.Tolerations,
		corev1.Toleration{Key: realNodeTaint, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule})
	manifest, err := json.Marshal(pod)
	if err != nil {
		t.Fatal(err)
	}
	// What an earlier run on this cluster (make e2e-up) left goes first.
	c.must(t, "", "-n", ns, "delete", "pod", pod.Name, "--ignore-not-found", "--wait")
	for _, doc := range others {
		c.must(t, doc, "-n", ns, "delete", "-f", "-", "--ignore-not-found", "--wait")
	}

	watch := c.watchClaims(t, ns)
	for _, doc := range others {
		c.must(t, doc, "-n", ns, "create", "-f", "-")
	}
	c.must(t, string(manifest), "create", "-f", "-")
	phase := waitForAny(t, 3*time.Minute, func() string {
		p, _ := c.run("", "-n", ns, "get", "pod", pod.Name, "-o", "jsonpath={.status.phase}")
		if p == "Succeeded" || p == "Failed" {
			return p
		}
		return ""
	})
	r := draResult{logs: map[string]string{}}
	if err := json.Unmarshal([]byte(c.must(t, "", "-n", ns, "get", "pod", pod.Name, "-o", "json")), &r.pod); err != nil {
		t.Fatal(err)
	}
	for _, ctr := range r.pod.Spec.Containers {
		r.logs[ctr.Name], _ = c.run("", "-n", ns, "logs", pod.Name, "-c", ctr.Name)
	}
	r.claims = podClaims(r.pod, watch.stop(t))
	if phase != "Succeeded" {
		status, _ := json.MarshalIndent(r.pod.Status, "", "  ")
		t.Fatalf("pod %s/%s %s\nstatus: %s\nlogs: %v", ns, pod.Name, phase, status, r.logs)
	}
	return r
}

// claimWatch is `kubectl get resourceclaims --watch` on one namespace.
type claimWatch struct {
	cmd *exec.Cmd
	out bytes.Buffer
}

func (c *cluster) watchClaims(t *testing.T, ns string) *claimWatch {
	t.Helper()
	w := &claimWatch{cmd: exec.Command(c.kubectl, "--kubeconfig", c.kubeconfig, "-n", ns, "get", "resourceclaims",
		"--watch", "-o", "json")}
	w.cmd.Stdout = &w.out
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.cmd.Process.Kill(); _ = w.cmd.Wait() })
	return w
}

// stop ends the watch and returns, by name, the last state seen of each
// claim that was allocated.
func (w *claimWatch) stop(t *testing.T) map[string]resourcev1.ResourceClaim {
	t.Helper()
	// The last updates reach the watch a moment after the pod's status.
	time.Sleep(time.Second)
	_ = w.cmd.Process.Kill()
	_ = w.cmd.Wait()
	claims := map[string]resourcev1.ResourceClaim{}
	dec := json.NewDecoder(&w.out)
	for {
		var claim resourcev1.ResourceClaim
		if err := dec.Decode(&claim); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			// The kill may cut the last object short.
			t.Logf("the claims' watch: %v", err)
			break
		}
		if claim.Status.Allocation != nil {
			claims[claim.Name] = claim
		}
	}
	return claims
}

// draEnv reads draEnvScript's lines.
func draEnv(log string) map[string]string {
	env := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(log), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			env[k] = v
		}
	}
	return env
}

// wantDRAEnv is what the driver injects into a container given devices
// (gpu-<n>) of the claim with uid, with its default GPU configuration
// (time-slicing, interval Default: api/example.com/resource/gpu/v1alpha1).
func wantDRAEnv(uid string, devices ...string) map[string]string {
	env := map[string]string{"DRA_RESOURCE_DRIVER_NAME": draDriver, "KUBERNETES_NODE_NAME": realNode}
	for _, d := range devices {
		n := strings.TrimPrefix(d, "gpu-")
		env["GPU_DEVICE_"+n] = d
		env["GPU_DEVICE_"+n+"_RESOURCE_CLAIM"] = uid
		env["GPU_DEVICE_"+n+"_SHARING_STRATEGY"] = "TimeSlicing"
		env["GPU_DEVICE_"+n+"_TIMESLICE_INTERVAL"] = "Default"
	}
	return env
}

// allocatedDevices checks that every device of the claim's allocation is
// the driver's, in the real node's pool, for request (any request if
// empty: the scheduler names those of the claims it makes), and returns
// them.
func allocatedDevices(t *testing.T, claim resourcev1.ResourceClaim, request string) []string {
	t.Helper()
	var devices []string
	for _, r := range claim.Status.Allocation.Devices.Results {
		if r.Driver != draDriver || r.Pool != realNode || (request != "" && r.Request != request) {
			t.Errorf("claim %s: allocated %s/%s/%s for request %s, want driver %s, pool %s, request %s",
				claim.Name, r.Driver, r.Pool, r.Device, r.Request, draDriver, realNode, request)
		}
		devices = append(devices, r.Device)
	}
	slices.Sort(devices)
	return devices
}

// draPodManifest is a pod of one container, main, in the real node's
// image, that prints what the driver injected, with claims: for each
// name, a claim of the template of that name, which main uses; and
// limits on main's resources.
func draPodManifest(name string, claims []string, limits corev1.ResourceList) string {
	pod := corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever,
			Containers: []corev1.Container{{
				Name: "main", Image: realImage, ImagePullPolicy: corev1.PullNever,
				Command: []string{"sh", "-c", draEnvScript},
				Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("50m"),
						corev1.ResourceMemory: resource.MustParse("64Mi")},
					Limits: limits,
				},
			}},
		},
	}
	for _, c := range claims {
		pod.Spec.ResourceClaims = append(pod.Spec.ResourceClaims,
			corev1.PodResourceClaim{Name: c, ResourceClaimTemplateName: &c})
		pod.Spec.Containers[0].Resources.Claims = append(pod.Spec.Containers[0].Resources.Claims,
			corev1.ResourceClaim{Name: c})
	}
	out, _ := json.Marshal(pod)
	return string(out)
}

// claimTemplateManifest is a ResourceClaimTemplate of one request, gpu,
// for count devices of the DeviceClass draDriver that pass the CEL
// selectors.
func claimTemplateManifest(name string, count int64, selectors ...string) string {
	req := resourcev1.ExactDeviceRequest{DeviceClassName: draDriver,
		AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: count}
	for _, s := range selectors {
		req.Selectors = append(req.Selectors, resourcev1.DeviceSelector{CEL: &resourcev1.CELDeviceSelector{Expression: s}})
	}
	tmpl := resourcev1.ResourceClaimTemplate{
		TypeMeta:   metav1.TypeMeta{APIVersion: "resource.k8s.io/v1", Kind: "ResourceClaimTemplate"},
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: resourcev1.ResourceClaimTemplateSpec{Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{
			Requests: []resourcev1.DeviceRequest{{Name: "gpu", Exactly: &req}},
		}}},
	}
	out, _ := json.Marshal(tmpl)
	return string(out)
}

// TestE2EDRAClaimTemplate: a pod whose container uses a claim made from a
// ResourceClaimTemplate of one device of the DeviceClass gets one of the
// node's simulated GPUs allocated, and its container sees that device, and
// only it, in what the driver injects.
func TestE2EDRAClaimTemplate(t *testing.T) {
	t.Parallel()
	c := e2eCluster(t)
	r := c.runDRAPod(t, "e2e-dra-template",
		[]string{claimTemplateManifest("gpu", 1), draPodManifest("dra-one", []string{"gpu"}, nil)})
	claim, device := oneDevice(t, r.claims, "gpu", r.logs["main"])
	t.Logf("claim %s: %s allocated on %s; the container saw GPU_DEVICE_%s=%s", claim.Name, device, realNode,
		strings.TrimPrefix(device, "gpu-"), device)
}

// TestE2EDRASelector: a request for two devices with a CEL selector on
// the driver's index attribute gets exactly the two devices it selects,
// the node's last two, and the container sees both.
func TestE2EDRASelector(t *testing.T) {
	t.Parallel()
	c := e2eCluster(t)
	n := draDeviceCount(t, c)
	want := []string{fmt.Sprintf("gpu-%d", n-2), fmt.Sprintf("gpu-%d", n-1)}
	slices.Sort(want)
	selector := fmt.Sprintf(`device.attributes[%q].index >= %d && `+
		`device.capacity[%q].memory.compareTo(quantity("80Gi")) >= 0`, draDriver, n-2, draDriver)
	r := c.runDRAPod(t, "e2e-dra-selector",
		[]string{claimTemplateManifest("last-two", 2, selector), draPodManifest("dra-two", []string{"last-two"}, nil)})
	claim, ok := r.claims["last-two"]
	if !ok {
		t.Fatalf("no allocated claim seen for the pod's claim last-two (statuses %+v)", r.pod.Status.ResourceClaimStatuses)
	}
	if got := allocatedDevices(t, claim, "gpu"); !slices.Equal(got, want) {
		t.Fatalf("claim %s: allocated %v, want %v (selector %s)", claim.Name, got, want, selector)
	}
	if got, wantEnv := draEnv(r.logs["main"]), wantDRAEnv(string(claim.UID), want...); !maps.Equal(got, wantEnv) {
		t.Errorf("the container saw:\n%s\nwant %v", r.logs["main"], wantEnv)
	}
	t.Logf("selector %s: claim %s got %v", selector, claim.Name, want)
}

// TestE2EDRAExtendedResource: a container's plain limit of the extended
// resource that the DeviceClass names (no claim in the pod) is met by DRA:
// the scheduler makes a claim for it, and the container sees one device.
func TestE2EDRAExtendedResource(t *testing.T) {
	t.Parallel()
	c := e2eCluster(t)
	r := c.runDRAPod(t, "e2e-dra-extended",
		[]string{draPodManifest("dra-extended", nil, corev1.ResourceList{draExtendedResource: resource.MustParse("1")})})
	claim, device := oneDevice(t, r.claims, draExtendedResource, r.logs["main"])
	t.Logf("limit %s: 1 met by claim %s, device %s", draExtendedResource, claim.Name, device)
}

// oneDevice checks that claims holds an allocated claim for name (the
// pod's name for it, or draExtendedResource for the one the scheduler
// made for its extended resources) with one device of the driver, and
// that what a container saw (draEnvScript's lines) is exactly what the
// driver injects for it; it returns the claim and the device.
func oneDevice(t *testing.T, claims map[string]resourcev1.ResourceClaim,
	name, seen string) (resourcev1.ResourceClaim, string) {
	t.Helper()
	claim, ok := claims[name]
	if !ok {
		t.Fatalf("no allocated claim seen for %s (seen for: %v)", name, slices.Sorted(maps.Keys(claims)))
	}
	request := "gpu" // the request's name in the templates here and in the compiler's
	if name == draExtendedResource {
		request = ""
	}
	devices := allocatedDevices(t, claim, request)
	if len(devices) != 1 {
		t.Fatalf("claim %s: %d devices allocated, want 1: %v", claim.Name, len(devices), devices)
	}
	if got, want := draEnv(seen), wantDRAEnv(string(claim.UID), devices...); !maps.Equal(got, want) {
		t.Errorf("the container saw:\n%s\nwant %v", seen, want)
	}
	return claim, devices[0]
}
