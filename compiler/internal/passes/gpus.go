package passes

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// ClaimTemplates keeps the ResourceClaimTemplates some step's claim
// names, by name: a request lowering turned into a limit afterwards (a
// Dask worker's) names none.
func ClaimTemplates(p *ir.Pipeline) diag.Diagnostics {
	used := map[string]bool{}
	for _, s := range p.Steps {
		for _, r := range stepResources(s) {
			if r.UsesDRA() && r.GPUClaim.Template != "" {
				used[r.GPUClaim.Template] = true
			}
		}
	}
	p.ResourceClaimTemplates = slices.DeleteFunc(p.ResourceClaimTemplates,
		func(t ir.ResourceClaimTemplate) bool { return !used[t.Name] })
	slices.SortFunc(p.ResourceClaimTemplates,
		func(a, b ir.ResourceClaimTemplate) int { return strings.Compare(a.Name, b.Name) })
	if len(p.ResourceClaimTemplates) == 0 {
		p.ResourceClaimTemplates = nil
	}
	return nil
}

// stepResources are what every container of s's pods asks for.
func stepResources(s *ir.Step) []ir.Resources {
	out := []ir.Resources{s.Resources}
	if s.MPI != nil {
		out = append(out, s.MPI.Launcher)
	}
	if s.Dask != nil {
		out = append(out, s.Dask.Worker)
	}
	return out
}

// QueuedClaims warns, once per device class, about a queued step whose
// pods claim GPUs from a template: Kueue v0.19.2 (KueueDRAIntegration,
// beta and on by default) counts a claim's devices against the queue's
// quota through its configuration's deviceClassMappings, and leaves a
// workload whose class has no mapping inadmissible
// (GetResourceRequestsForResourceClaimTemplates, pkg/dra/claims.go).
func QueuedClaims(p *ir.Pipeline) diag.Diagnostics {
	var out diag.Diagnostics
	classes := map[string]string{}
	for _, t := range p.ResourceClaimTemplates {
		classes[t.Name] = t.DeviceClass
	}
	warned := map[string]bool{}
	for _, s := range p.Steps {
		if s.Kind == ir.Torch {
			out = append(out, queuedTrainLimit(s)...)
			continue
		}
		for _, r := range stepResources(s) {
			if s.Queue == "" || !r.UsesDRA() || r.GPUClaim.Template == "" || warned[classes[r.GPUClaim.Template]] {
				continue
			}
			class := classes[r.GPUClaim.Template]
			warned[class] = true
			out = append(out, diag.Warnf(diag.QueuedGPUClaims, r.GPUClaim.At,
				"step %s runs in the Kueue queue %s and claims GPUs, which Kueue counts only through a deviceClassMappings "+
					"entry for %s", s.Name, s.Queue, class).
				WithFix("map the class in Kueue's deviceClassMappings, or run the step outside the queue (queue: \"\")").
				WithDetail("Kueue counts the GPUs a step's pods claim against the queue's quota only through a "+
					"deviceClassMappings entry for %s in its configuration (KueueDRAIntegration, on by default from v0.18); "+
					"without one it leaves the workload inadmissible (\"DeviceClass %s is not mapped in DRA configuration\").%s",
					class, class, tektonLimit(s)))
		}
	}
	return out
}

// queuedTrainLimit warns about a queued torch step that asks for GPUs by
// DRA: a TrainJob's node pods cannot carry claims, so they ask for the
// class's extended resource as a limit (distributed.trainJob), and
// Kueue v0.19.2 counts a limit against a device class's quota only when
// the name is some DeviceClass's spec.extendedResourceName, and only
// with its alpha KueueDRAIntegrationExtendedResource gate on
// (deviceClassHandler, pkg/controller/core/workload_controller.go;
// resolveQuotaKey, pkg/dra/extended_resources.go;
// pkg/features/kube_features.go). Any other name, such as the
// deviceclass.resource.kubernetes.io/<class> Kubernetes gives every
// class, is a resource of its own that the ClusterQueue must list, or
// the workload is never admitted ("resource X unavailable in
// ClusterQueue", pkg/scheduler/flavorassigner/flavorassigner.go).
func queuedTrainLimit(s *ir.Step) diag.Diagnostics {
	r := s.Resources
	if s.Queue == "" || !r.UsesDRA() || r.GPUClaim.ExtendedResourceName == "" {
		return nil
	}
	name := r.GPUClaim.ExtendedResourceName
	return diag.Diagnostics{diag.Warnf(diag.QueuedGPUsAsLimit, r.GPUClaim.At,
		"step %s in Kueue queue %s asks for its GPUs as the limit %s, which Kueue counts as a resource of its own name",
		s.Name, s.Queue, name).
		WithFix(fmt.Sprintf("list %s in the queue's ClusterQueue's coveredResources with a quota", name)).
		WithDetail("The step runs as a TrainJob, whose node pods cannot carry claims, so they ask for their GPUs as a "+
			"limit. Kueue counts the limit as a resource of its own name%s; without it in coveredResources the workload "+
			"stays pending (\"resource %s unavailable in ClusterQueue\").", queuedLimitCounted(name), name)}
}

// queuedLimitCounted says how Kueue v0.19.2 counts the limit name of GPUs
// by DRA beside no deviceClassMappings entry (queuedTrainLimit).
func queuedLimitCounted(name string) string {
	if strings.HasPrefix(name, ir.ImplicitResourcePrefix) {
		return " (it maps a limit to its device class only by the class's spec.extendedResourceName, never by the name " +
			"Kubernetes gives every class, and no deviceClassMappings entry counts it)"
	}
	return " (unless its KueueDRAIntegrationExtendedResource gate, alpha and off by default, is on and " +
		"deviceClassMappings maps the class, when it counts the mapped name)"
}

// tektonLimit notes, for a container step, that Tekton asks for its GPUs
// as a limit, which Kueue counts otherwise (MLC319).
func tektonLimit(s *ir.Step) string {
	if s.Kind != ir.Container {
		return ""
	}
	return " On Tekton, whose pods cannot carry claims, the step asks for them as a limit, which Kueue counts " +
		"otherwise (MLC319)."
}
