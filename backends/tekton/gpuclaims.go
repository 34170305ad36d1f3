package tekton

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mlcube-compile/mlcube-compile/backends/internal/kube"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// GPUs by Dynamic Resource Allocation on Tekton. A TaskRun's pod takes
// its pod-level fields from the pod template, which has no
// resourceClaims (pkg/apis/pipeline/pod/template.go, v1.15.0), so a
// container step's pod cannot carry a claim: it asks for its GPUs as the
// class's extended resource, a plain limit, which Kubernetes'
// DRAExtendedResource feature maps to the class (alpha and off by
// default in 1.34 and 1.35, beta and on from 1.36:
// pkg/features/kube_features.go of v1.36.3), or is refused when no limit
// can say its request. The pods of MPIJobs, which the kubectl tasks
// create, carry their claims; the templates they claim from are the
// documents before the run.

// gpusAsLimits is p with each container step's GPUs by DRA asked for as
// a limit, or the refusals of the steps whose request no limit can say.
func gpusAsLimits(p *ir.Pipeline) (*ir.Pipeline, error) {
	var refused diag.Diagnostics
	out := *p
	out.Steps = slices.Clone(p.Steps)
	for i, s := range out.Steps {
		if s.Kind != ir.Container {
			continue
		}
		r, ok := kube.GPUsAsLimit(s.Resources)
		if !ok {
			c := s.Resources.GPUClaim
			refused = append(refused, diag.Errorf(diag.EngineCannotRun, c.At,
				"step %s cannot ask for its GPUs as a limit: %s", s.Name, c.Why).
				WithFix("ask for them so that a limit can (a deviceClass with no selector), or as an extended resource "+
					"(the platform's gpu.resource), or use --backend argo").
				WithDetail("A TaskRun's pod must ask for them as a limit: it cannot carry claims (Tekton's pod template "+
					"has no resourceClaims), so it asks for GPUs by Dynamic Resource Allocation as the device class's "+
					"extended resource."))
			continue
		}
		copied := *s
		copied.Resources = r
		out.Steps[i] = &copied
	}
	if len(refused) > 0 {
		return nil, refused
	}
	return &out, nil
}

// limitWarnings say, for each container step of p that asks for GPUs by
// DRA, what its limit needs of the cluster.
func limitWarnings(p *ir.Pipeline) diag.Diagnostics {
	var out diag.Diagnostics
	for _, s := range p.Steps {
		if r, ok := kube.GPUsAsLimit(s.Resources); ok && s.Kind == ir.Container && s.Resources.UsesDRA() {
			out = append(out, diag.Warnf(diag.GPUsAsLimit, s.Loc,
				"step %s asks for its GPUs as the limit %s, which needs Kubernetes' DRAExtendedResource feature", s.Name,
				r.GPUResource).
				WithFix("on a cluster older than 1.36 turn the feature on, or ask for GPUs as an extended resource a device "+
					"plugin serves (gpu.resource)").
				WithDetail("A TaskRun's pod cannot carry claims, and Kubernetes maps that name to the device class only "+
					"with DRAExtendedResource (beta and on by default from 1.36; alpha and off in 1.34 and 1.35); elsewhere no "+
					"node has that resource, and the pod stays Pending (Insufficient %s).", r.GPUResource))
			if s.Queue != "" {
				out = append(out, queuedLimit(s, r.GPUResource))
			}
		}
	}
	return out
}

// jobClaimTemplates are the templates of p that the pods of its MPIJobs
// and JobSets claim GPUs from: the documents before the run.
func jobClaimTemplates(p *ir.Pipeline) *ir.Pipeline {
	out := *p
	out.ResourceClaimTemplates = nil
	for _, t := range p.ResourceClaimTemplates {
		if slices.ContainsFunc(p.Steps, func(s *ir.Step) bool { return claimsFrom(s, t.Name) }) {
			out.ResourceClaimTemplates = append(out.ResourceClaimTemplates, t)
		}
	}
	return &out
}

// claimsFrom says whether a pod of the job of the step s, an MPI step or
// a Dask step's JobSet, claims GPUs from the template name.
func claimsFrom(s *ir.Step, name string) bool {
	var rs []ir.Resources
	switch {
	case s.MPI != nil:
		rs = []ir.Resources{s.Resources, s.MPI.Launcher}
	case s.Dask != nil && s.Dask.Form == ir.DaskJobSet:
		rs = []ir.Resources{s.Resources, s.Dask.Worker}
	}
	return slices.ContainsFunc(rs, func(r ir.Resources) bool {
		return r.UsesDRA() && r.GPUClaim.Template == name
	})
}

// queuedLimit warns that Kueue counts the limit name of a queued step's
// GPUs by DRA as a resource of that name, which the queue's ClusterQueue
// must list: Kueue v0.19.2 maps a limit to a device class only when it
// is the class's spec.extendedResourceName, with its alpha
// KueueDRAIntegrationExtendedResource gate on (deviceClassHandler,
// pkg/controller/core/workload_controller.go; resolveQuotaKey,
// pkg/dra/extended_resources.go), never the
// deviceclass.resource.kubernetes.io/<class> name, and a workload asking
// for a resource its ClusterQueue lists not is never admitted ("resource
// X unavailable in ClusterQueue", pkg/scheduler/flavorassigner).
func queuedLimit(s *ir.Step, name string) diag.Diagnostic {
	how := " (unless its KueueDRAIntegrationExtendedResource gate, alpha and off by default, is on and " +
		"deviceClassMappings maps the class, when it counts the mapped name)"
	if strings.HasPrefix(name, "deviceclass.resource.kubernetes.io/") {
		how = " (it maps a limit to its device class only by the class's spec.extendedResourceName, never by the name " +
			"Kubernetes gives every class, and no deviceClassMappings entry counts it)"
	}
	return diag.Warnf(diag.QueuedGPUsAsLimit, s.Resources.GPUClaim.At,
		"step %s in Kueue queue %s asks for its GPUs as the limit %s, which Kueue counts as a resource of its own name",
		s.Name, s.Queue, name).
		WithFix(fmt.Sprintf("list %s in the queue's ClusterQueue's coveredResources with a quota", name)).
		WithDetail("Kueue counts the limit as a resource of its own name%s; without it in coveredResources the workload "+
			"stays pending (\"resource %s unavailable in ClusterQueue\").", how, name)
}
