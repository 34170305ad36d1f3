package kube

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/ptr"

	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
)

// GPUs by Dynamic Resource Allocation. A pod that asks for them names its
// claim in spec.resourceClaims (a claim of its own made from a
// ResourceClaimTemplate, or an existing claim it shares) and the
// container that uses it names the claim in resources.claims. The
// resource-claim controller (pkg/controller/resourceclaim/controller.go,
// Kubernetes v1.36.3) creates a pod's claim from the template, owned by
// the pod, so that the garbage collector deletes it with the pod: the
// run's account needs nothing for it.

// ResourceClaimTemplates are the pipeline's templates, in the run's
// namespace, each checked as the API server checks it.
func ResourceClaimTemplates(p *ir.Pipeline) ([]*resourcev1.ResourceClaimTemplate, error) {
	var out []*resourcev1.ResourceClaimTemplate
	claimed := claimedTemplates(p)
	for _, t := range p.ResourceClaimTemplates {
		if !claimed[t.Name] {
			continue
		}
		obj := ResourceClaimTemplate(p, t)
		if err := ValidateResourceClaimTemplate(obj); err != nil {
			return nil, fmt.Errorf("ResourceClaimTemplate %s: %w", t.Name, err)
		}
		out = append(out, obj)
	}
	return out, nil
}

// ResourceClaimTemplate is t as an object: one request for exactly
// t.Count devices of its class that match its selector.
func ResourceClaimTemplate(p *ir.Pipeline, t ir.ResourceClaimTemplate) *resourcev1.ResourceClaimTemplate {
	req := &resourcev1.ExactDeviceRequest{
		DeviceClassName: t.DeviceClass,
		AllocationMode:  resourcev1.DeviceAllocationModeExactCount,
		Count:           int64(t.Count),
	}
	if t.Selector != "" {
		req.Selectors = []resourcev1.DeviceSelector{{CEL: &resourcev1.CELDeviceSelector{Expression: t.Selector}}}
	}
	return &resourcev1.ResourceClaimTemplate{
		TypeMeta:   metav1.TypeMeta{APIVersion: resourcev1.SchemeGroupVersion.String(), Kind: "ResourceClaimTemplate"},
		ObjectMeta: metav1.ObjectMeta{Name: t.Name, Namespace: p.Namespace, Labels: Labels(p.Labels)},
		Spec: resourcev1.ResourceClaimTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: Labels(p.Labels)},
			Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{
				Requests: []resourcev1.DeviceRequest{{Name: ir.RequestName, Exactly: req}},
			}},
		},
	}
}

// ValidateResourceClaimTemplate checks what the API server checks of a
// template the compiler makes (pkg/apis/resource/validation/validation.go,
// Kubernetes v1.36.3): its name, the request's name, the class's name,
// the count with allocationMode ExactCount, and the number of selectors.
// The API server also compiles each selector, which the compiler has
// parsed.
func ValidateResourceClaimTemplate(t *resourcev1.ResourceClaimTemplate) error {
	var problems []string
	add := func(what string, msgs []string) {
		for _, m := range msgs {
			problems = append(problems, what+": "+m)
		}
	}
	add("metadata.name", validation.IsDNS1123Subdomain(t.Name))
	reqs := t.Spec.Spec.Devices.Requests
	if len(reqs) != 1 {
		return fmt.Errorf("%d device requests, want 1", len(reqs))
	}
	r := reqs[0]
	add("request name", validation.IsDNS1123Label(r.Name))
	switch e := r.Exactly; {
	case e == nil:
		problems = append(problems, "no exactly request")
	default:
		add("deviceClassName", validation.IsDNS1123Subdomain(e.DeviceClassName))
		if e.AllocationMode != resourcev1.DeviceAllocationModeExactCount || e.Count <= 0 ||
			e.Count > resourcev1.AllocationResultsMaxSize {
			problems = append(problems, fmt.Sprintf("allocationMode %s with count %d, want ExactCount and 1 to %d",
				e.AllocationMode, e.Count, resourcev1.AllocationResultsMaxSize))
		}
		if len(e.Selectors) > resourcev1.DeviceSelectorsMaxSize {
			problems = append(problems, "too many selectors")
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("%v", problems)
	}
	return nil
}

// PodResourceClaims are the claims of a pod whose containers ask for rs:
// the GPU claim of the first that asks for GPUs by DRA; nil when none
// does. A pod's containers that ask for GPUs by DRA ask for one claim.
func PodResourceClaims(rs ...ir.Resources) []corev1.PodResourceClaim {
	for _, r := range rs {
		if !r.UsesDRA() {
			continue
		}
		c := corev1.PodResourceClaim{Name: ir.ClaimName}
		if r.GPUClaim.Shared != "" {
			c.ResourceClaimName = ptr.To(r.GPUClaim.Shared)
		} else {
			c.ResourceClaimTemplateName = ptr.To(r.GPUClaim.Template)
		}
		return []corev1.PodResourceClaim{c}
	}
	return nil
}

// containerClaims are what a container names in resources.claims: the
// pod's GPU claim, whole, when r asks for GPUs by DRA.
func containerClaims(r ir.Resources) []corev1.ResourceClaim {
	if !r.UsesDRA() {
		return nil
	}
	return []corev1.ResourceClaim{{Name: ir.ClaimName}}
}

// GPUsAsLimit is r with its GPUs by DRA asked for as the extended
// resource Kubernetes' DRAExtendedResource feature maps to their class,
// for a pod that cannot carry claims (a Tekton task's, a TrainJob's);
// false when no limit can say the request (r.GPUClaim.Why says why, and
// r.GPUClaim.At where). r is returned as it is when it does not ask for
// GPUs by DRA.
func GPUsAsLimit(r ir.Resources) (ir.Resources, bool) {
	if !r.UsesDRA() {
		return r, true
	}
	if r.GPUClaim.ExtendedResourceName == "" {
		return r, false
	}
	r.GPUResource, r.GPUClaim = r.GPUClaim.ExtendedResourceName, nil
	return r, true
}

// claimedTemplates are the templates some pod claims from: a container
// step's, an MPIJob's launcher's and workers', and the client's and
// workers' of a Dask step's JobSet. A TrainJob's node pods and a
// DaskJob's pods cannot carry claims, and ask for their GPUs as a limit
// instead, so a template only they would use is never made.
func claimedTemplates(p *ir.Pipeline) map[string]bool {
	out := map[string]bool{}
	for _, s := range p.Steps {
		rs := []ir.Resources{s.Resources}
		switch {
		case s.MPI != nil:
			rs = append(rs, s.MPI.Launcher)
		case s.Dask != nil && s.Dask.Form == ir.DaskJobSet:
			rs = append(rs, s.Dask.Worker)
		case s.Kind != ir.Container:
			continue
		}
		for _, r := range rs {
			if r.UsesDRA() && r.GPUClaim.Template != "" {
				out[r.GPUClaim.Template] = true
			}
		}
	}
	return out
}
