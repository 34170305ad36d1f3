package kube

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"

	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
)

var (
	fromTemplate = ir.Resources{CPU: "4", GPU: 2,
		GPUClaim: &ir.GPUClaim{Template: "run-gpu-abc", ExtendedResourceName: "example.com/gpu"}}
	shared = ir.Resources{GPU: 1,
		GPUClaim: &ir.GPUClaim{Shared: "team-a100", Why: "its pods share the existing ResourceClaim team-a100"}}
)

// A container that asks for GPUs by DRA names the pod's claim in its
// resources.claims and has no GPU limit; the pod names the template or
// the shared claim.
func TestGPUClaims(t *testing.T) {
	want := corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4")},
		Claims:   []corev1.ResourceClaim{{Name: "gpu"}},
	}
	if diff := cmp.Diff(want, Resources(fromTemplate), quantities); diff != "" {
		t.Errorf("container resources (-want +got):\n%s", diff)
	}
	for _, c := range []struct {
		rs   []ir.Resources
		want []corev1.PodResourceClaim
	}{
		{nil, nil},
		{[]ir.Resources{{GPU: 1, GPUResource: "nvidia.com/gpu"}}, nil},
		{[]ir.Resources{{}, fromTemplate},
			[]corev1.PodResourceClaim{{Name: "gpu", ResourceClaimTemplateName: ptr.To("run-gpu-abc")}}},
		{[]ir.Resources{shared}, []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimName: ptr.To("team-a100")}}},
	} {
		if diff := cmp.Diff(c.want, PodResourceClaims(c.rs...)); diff != "" {
			t.Errorf("%v (-want +got):\n%s", c.rs, diff)
		}
	}
}

// GPUsAsLimit asks for the class's extended resource, when a limit can
// say the request; what does not ask by DRA is left as it is.
func TestGPUsAsLimit(t *testing.T) {
	got, ok := GPUsAsLimit(fromTemplate)
	if want := (ir.Resources{CPU: "4", GPU: 2, GPUResource: "example.com/gpu"}); !ok || !cmp.Equal(want, got) {
		t.Errorf("got %+v, %v; want %+v", got, ok, want)
	}
	if _, ok := GPUsAsLimit(shared); ok {
		t.Error("a shared claim became a limit")
	}
	plain := ir.Resources{GPU: 1, GPUResource: "nvidia.com/gpu"}
	if got, ok := GPUsAsLimit(plain); !ok || !cmp.Equal(plain, got) {
		t.Errorf("an extended resource changed: %+v", got)
	}
}

// The template asks for exactly its count of devices of its class that
// match its selector; what the API server refuses is refused here.
func TestResourceClaimTemplate(t *testing.T) {
	p := &ir.Pipeline{
		Namespace: "ml", Labels: map[string]string{"app": "run"},
		ResourceClaimTemplates: []ir.ResourceClaimTemplate{
			{Name: "run-gpu-abc", DeviceClass: "gpu.example.com", Selector: `device.driver == "gpu.example.com"`, Count: 2},
			{Name: "run-gpu-torch", DeviceClass: "gpu.example.com", Count: 2},
		},
		Steps: []*ir.Step{
			{Kind: ir.Container, Resources: ir.Resources{GPU: 2, GPUClaim: &ir.GPUClaim{Template: "run-gpu-abc"}}},
			// A TrainJob's pods cannot claim: its GPUs are a limit.
			{Kind: ir.Torch, Resources: ir.Resources{GPU: 2, GPUClaim: &ir.GPUClaim{Template: "run-gpu-torch"}}},
		},
	}
	objs, err := ResourceClaimTemplates(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 1 {
		t.Fatalf("want the template a container step claims from, and not the torch step's: got %d", len(objs))
	}
	req := objs[0].Spec.Spec.Devices.Requests[0]
	if objs[0].Namespace != "ml" || objs[0].Spec.Labels["app"] != "run" || req.Name != "gpu" || req.Exactly.Count != 2 ||
		req.Exactly.AllocationMode != "ExactCount" ||
		req.Exactly.Selectors[0].CEL.Expression != p.ResourceClaimTemplates[0].Selector {
		t.Errorf("template: %+v", objs[0])
	}
	for _, c := range []struct {
		t    ir.ResourceClaimTemplate
		want string
	}{
		{ir.ResourceClaimTemplate{Name: "Run", DeviceClass: "g", Count: 1}, "metadata.name"},
		{ir.ResourceClaimTemplate{Name: "run", DeviceClass: "G_1", Count: 1}, "deviceClassName"},
		{ir.ResourceClaimTemplate{Name: "run", DeviceClass: "g", Count: 0}, "allocationMode ExactCount with count 0"},
		{ir.ResourceClaimTemplate{Name: "run", DeviceClass: "g", Count: 33}, "with count 33"},
	} {
		claimed := &ir.Step{Resources: ir.Resources{GPU: 1, GPUClaim: &ir.GPUClaim{Template: c.t.Name}}}
		_, err := ResourceClaimTemplates(&ir.Pipeline{ResourceClaimTemplates: []ir.ResourceClaimTemplate{c.t},
			Steps: []*ir.Step{claimed}})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: got %v, want %q", c.t, err, c.want)
		}
	}
}
