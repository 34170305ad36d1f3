package job_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/utils/ptr"

	"github.com/mlcube-compile/mlcube-compile/backends/job"
	"github.com/mlcube-compile/mlcube-compile/internal/enginetest"
	"github.com/mlcube-compile/mlcube-compile/internal/manifestcheck"
)

// The Job's pod claims its GPUs from the template, which comes before
// the Job; its container names the claim.
func TestJobGPUClaims(t *testing.T) {
	out := build(t, manifestcheck.Specs(enginetest.Example(t, "dra-gpu"))).Must(t)
	if len(out.ResourceClaimTemplates) != 1 {
		t.Fatalf("want one template, got %v", out.ResourceClaimTemplates)
	}
	tmpl := out.ResourceClaimTemplates[0].(*resourcev1.ResourceClaimTemplate)
	pod := out.Run.(*batchv1.Job).Spec.Template.Spec
	if diff := cmp.Diff([]corev1.PodResourceClaim{{Name: "gpu", ResourceClaimTemplateName: ptr.To(tmpl.Name)}},
		pod.ResourceClaims); diff != "" {
		t.Errorf("the pod's claims (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]corev1.ResourceClaim{{Name: "gpu"}}, pod.Containers[0].Resources.Claims); diff != "" {
		t.Errorf("the container's claims (-want +got):\n%s", diff)
	}
}

// Validate refuses the claims the API server refuses: a container's
// claim that the pod does not have, and a pod's claim from both a claim
// and a template.
func TestValidateClaims(t *testing.T) {
	out := build(t, manifestcheck.Specs(enginetest.Example(t, "dra-gpu"))).Must(t)
	for want, change := range map[string]func(*corev1.PodSpec){
		`spec.template.spec.containers[0].resources.claims[0]: Not found: "gpus"`: func(p *corev1.PodSpec) {
			p.Containers[0].Resources.Claims[0].Name = "gpus"
		},
		"must set one of resourceClaimName and resourceClaimTemplateName": func(p *corev1.PodSpec) {
			p.ResourceClaims[0].ResourceClaimName = ptr.To("shared")
		},
		`spec.template.spec.resourceClaims[0].name: Invalid value: "GPU"`: func(p *corev1.PodSpec) {
			p.ResourceClaims[0].Name = "GPU"
		},
	} {
		j := out.Run.(*batchv1.Job).DeepCopy()
		change(&j.Spec.Template.Spec)
		if err := job.Validate(j); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("got %v, want %q", err, want)
		}
	}
}
