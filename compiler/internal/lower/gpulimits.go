package lower

import (
	"github.com/mlcube-compile/mlcube-compile/compiler/internal/spec"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// What a cluster does with a request for GPUs by DRA that it cannot
// serve, from Kubernetes v1.36.3's source:
//   - resource.k8s.io/v1 is served from 1.34, where DynamicResourceAllocation
//     became GA (pkg/features/kube_features.go); an older API server refuses
//     the ResourceClaimTemplate, and with the gate off (its default before
//     1.34) drops the pod's resourceClaims and its containers'
//     resources.claims (dropDisabledDynamicResourceAllocationFields,
//     pkg/api/pod/util.go), so the pod runs without GPUs;
//   - without the class's DeviceClass (which its driver installs), the
//     scheduler leaves the pod unschedulable: "request gpu: device class X
//     does not exist" (validateDeviceClass); without a device that matches
//     (no driver publishing ResourceSlices, or none matching the
//     selector), "cannot allocate all claims"; without a shared claim,
//     its lookup's not found (foreachPodResourceClaim), all in
//     pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go.

// warnDRA says, once per request, what a cluster that cannot serve it
// does with it.
func (g *gpuRequests) warnDRA(r *gpuRequest) diag.Diagnostics {
	key := r.at.String()
	if g.warned[key] {
		return nil
	}
	g.warned[key] = true
	if r.SharedClaim != "" {
		return diag.Diagnostics{diag.Notef(diag.GPUsByDRA, r.at,
			"GPUs by Dynamic Resource Allocation: the pods share the existing ResourceClaim %s", r.SharedClaim).WithDetail(
			"They get its devices whatever count they ask for, on the node those are on. A cluster older than Kubernetes 1.34 "+
				"drops the pods' claims unless its DynamicResourceAllocation feature is on, so they run without GPUs; without "+
				"the claim, or the DRA driver of its devices, the pods stay Pending, unschedulable (resourceclaim %q not found, "+
				"or \"cannot allocate all claims\"); kubectl get resourceclaim %s shows it", r.SharedClaim, r.SharedClaim)}
	}
	return diag.Diagnostics{diag.Notef(diag.GPUsByDRA, r.at,
		"GPUs by Dynamic Resource Allocation, of device class %s: each GPU pod claims its own from a ResourceClaimTemplate",
		r.DeviceClass).WithDetail(
		"The resource.k8s.io/v1 ResourceClaimTemplate is made before the run; a pod that cannot carry claims asks for the "+
			"class's extended resource. A cluster older than Kubernetes 1.34 serves no resource.k8s.io/v1, so it refuses the "+
			"template, and unless its DynamicResourceAllocation feature is on it drops the pods' claims, so they run without "+
			"GPUs; on a cluster without the class's DRA driver the pods stay Pending, unschedulable (\"device class %s does "+
			"not exist\", or \"cannot allocate all claims\" while no node publishes a matching device); kubectl get "+
			"deviceclass %s shows whether the cluster has it", r.DeviceClass, r.DeviceClass)}
}

// checkUnasked refuses DRA fields in a mapping written at at, under
// owner, that asks for no GPUs: they would ask for nothing.
func checkUnasked(res spec.Resources, at diag.Loc) diag.Diagnostics {
	for _, f := range []struct{ name, value string }{{"deviceClass", res.DeviceClass}, {"sharedClaim", res.SharedClaim},
		{"selector", res.Selector}} {
		if f.value != "" {
			return diag.Diagnostics{diag.Errorf(diag.BadGPURequest, at.Field(f.name),
				"%s says how GPUs are asked for, and this asks for none", f.name).
				WithFix("give gpu: N, or drop " + f.name).
				WithDetail("GPUs are asked for by platform.accelerator_count of the cube, or by gpu here.")}
		}
	}
	return nil
}

// daskWorkerGPUs asks for a Dask worker's GPUs as the class's extended
// resource when r asks for them by DRA: the dask-kubernetes operator's
// CRDs (../shared/crds/dask, commit 1daa175) give a DaskJob's pods no
// resourceClaims, so the API server would refuse or prune them.
// Kubernetes' DRAExtendedResource feature maps the limit to the class.
// A JobSet's pods are a Job's, which carry claims.
func (sl *stepLowering) daskWorkerGPUs(r ir.Resources) ir.Resources {
	if !r.UsesDRA() || daskForm(sl.plat) == ir.DaskJobSet {
		return r
	}
	c := r.GPUClaim
	if c.ExtendedResourceName == "" {
		sl.diags = append(sl.diags, diag.Errorf(diag.BadGPURequest, c.At,
			"the Dask workers cannot ask for their GPUs as a limit: %s", c.Why).
			WithFix("ask for the workers' GPUs by deviceClass alone, or as an extended resource (the platform's gpu.resource)").
			WithDetail("A DaskJob's pods must ask for them as a limit: they cannot carry claims (the dask-kubernetes "+
				"operator's CRDs have no resourceClaims), so they ask for GPUs by Dynamic Resource Allocation as the "+
				"device class's extended resource."))
		return r
	}
	sl.diags = append(sl.diags, diag.Warnf(diag.GPUsAsLimit, sl.st.Loc.Field("dask").Field("worker"),
		"the Dask workers ask for their GPUs as the limit %s, which needs Kubernetes' DRAExtendedResource feature",
		c.ExtendedResourceName).
		WithFix("on a cluster older than 1.36 turn the feature on, or ask for GPUs as an extended resource a device "+
			"plugin serves (gpu.resource)").
		WithDetail("A DaskJob's pods cannot carry claims, and Kubernetes maps that name to the device class only with "+
			"DRAExtendedResource (beta and on by default from 1.36; alpha and off in 1.34 and 1.35); elsewhere no node has "+
			"that resource, and the workers stay Pending (Insufficient %s).", c.ExtendedResourceName))
	r.GPUResource, r.GPUClaim = c.ExtendedResourceName, nil
	return r
}
