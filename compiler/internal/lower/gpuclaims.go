package lower

import (
	"fmt"
	"strconv"
	"strings"

	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/spec"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// GPUs by Dynamic Resource Allocation (resource.k8s.io/v1): a platform's
// gpu: section, or a resources mapping, names a DeviceClass (a claim per
// pod, from a ResourceClaimTemplate) or an existing ResourceClaim that
// the pods share, in place of an extended resource.
const (
	// maxClaimDevices is the most devices one claim is allocated
	// (AllocationResultsMaxSize, k8s.io/api/resource/v1): a request for
	// more is never satisfied, and its pod never scheduled.
	maxClaimDevices = resourcev1.AllocationResultsMaxSize
)

// gpuRequest is a request for GPUs by DRA, resolved: written at at (its
// deviceClass or sharedClaim), its selector at selectorAt, and the
// class's extendedResourceName when the platform names it.
type gpuRequest struct {
	spec.DeviceRequest
	at, selectorAt diag.Loc
	extendedName   string
}

// gpuRequests are the pipeline's requests: the platform's (nil when it
// asks for GPUs as an extended resource), the templates the requests
// make, by name, and the places already warned about.
type gpuRequests struct {
	platform  *gpuRequest
	templates map[string]ir.ResourceClaimTemplate
	warned    map[string]bool
	// pipeline is the pipeline's name, which the templates' start with.
	pipeline string
}

// platformGPUs reads the platform's gpu: section's request, checked, for
// the pipeline named pipeline.
func platformGPUs(plat *spec.Platform, pipeline string) (*gpuRequests, diag.Diagnostics) {
	out := &gpuRequests{templates: map[string]ir.ResourceClaimTemplate{}, warned: map[string]bool{}, pipeline: pipeline}
	g, at := plat.GPU, plat.Loc.Field("gpu")
	diags := checkDeviceFields(g.DeviceRequest, at)
	if g.Resource != "" && requestField(g.DeviceRequest) != "" {
		diags = append(diags, diag.Errorf(diag.BadGPURequest, at.Field("resource"),
			"resource asks for GPUs as an extended resource, and %s by Dynamic Resource Allocation: keep one",
			requestField(g.DeviceRequest)))
	}
	switch {
	case g.DeviceClass == "" && g.Selector != "" && g.SharedClaim == "":
		diags = append(diags, diag.Errorf(diag.BadGPURequest, at.Field("selector"),
			"selector narrows the GPUs of a device class, and gpu: names none").
			WithFix("add deviceClass, the DeviceClass the GPUs are of (kubectl get deviceclasses lists them)"))
	case g.DeviceClass == "" && g.ExtendedResourceName != "":
		diags = append(diags, diag.Errorf(diag.BadGPURequest, at.Field("extendedResourceName"),
			"extendedResourceName is the resource name of deviceClass's DeviceClass, and gpu: names no deviceClass").
			WithFix("add it, or drop extendedResourceName"))
	case g.ExtendedResourceName != "" && !isExtendedResourceName(g.ExtendedResourceName):
		diags = append(diags, diag.Errorf(diag.BadGPURequest, at.Field("extendedResourceName"),
			"%q is not an extended resource name", g.ExtendedResourceName).
			WithFix(fmt.Sprintf("give the DeviceClass's spec.extendedResourceName (kubectl get deviceclass %s -o "+
				"jsonpath='{.spec.extendedResourceName}')", g.DeviceClass)).
			WithDetail("An extended resource name is a domain outside kubernetes.io, '/', then at most 63 letters, digits, "+
				"'-', '_' or '.'."))
	}
	if g.DeviceClass != "" {
		g.SharedClaim = "" // refused beside it by checkDeviceFields
	}
	if f := requestField(g.DeviceRequest); f != "" {
		out.platform = &gpuRequest{DeviceRequest: g.DeviceRequest, at: at.Field(f), selectorAt: at.Field("selector"),
			extendedName: g.ExtendedResourceName}
	}
	return out, diags
}

// requestField names the field that makes r a request: deviceClass or
// sharedClaim; "" when it has neither.
func requestField(r spec.DeviceRequest) string {
	switch {
	case r.DeviceClass != "":
		return "deviceClass"
	case r.SharedClaim != "":
		return "sharedClaim"
	}
	return ""
}

// isExtendedResourceName is the API server's IsExtendedResourceName
// (pkg/apis/core/helper/helpers.go): a qualified name with a domain,
// outside kubernetes.io, that still is one after "requests.".
func isExtendedResourceName(name string) bool {
	domain, _, ok := strings.Cut(name, "/")
	if !ok || strings.Contains(name, "kubernetes.io/") || domain == "" {
		return false
	}
	return len(validation.IsQualifiedName("requests."+name)) == 0
}

// checkDeviceFields checks what one mapping's DRA fields, written at at,
// say together, and its selector.
func checkDeviceFields(r spec.DeviceRequest, at diag.Loc) diag.Diagnostics {
	switch {
	case r.DeviceClass != "" && r.SharedClaim != "":
		return diag.Diagnostics{diag.Errorf(diag.BadGPURequest, at.Field("sharedClaim"),
			"sharedClaim names an existing claim, and deviceClass asks for a claim per pod").
			WithFix("keep one").
			WithDetail("The devices of an existing claim were chosen when it was made.")}
	case r.SharedClaim != "" && r.Selector != "":
		return diag.Diagnostics{diag.Errorf(diag.BadGPURequest, at.Field("selector"),
			"the shared claim %s already holds its devices, so a selector cannot narrow them", r.SharedClaim).
			WithFix("drop selector, or name a deviceClass for a claim per pod instead of sharedClaim").
			WithDetail("The devices of an existing claim were chosen when it was made.")}
	case r.Selector != "":
		if problem, detail := selectorProblem(r.Selector); problem != "" {
			d := diag.Errorf(diag.BadGPURequest, at.Field("selector"), "not a device selector the API server compiles: %s",
				problem).
				WithFix("write a CEL condition on device, such as device.attributes[\"gpu.example.com\"].model == \"A100\"")
			if detail != "" {
				d = d.WithDetail("%s", detail)
			}
			return diag.Diagnostics{d}
		}
	}
	return nil
}

// claim is how a container that asks for gpus GPUs, through the
// resources mapping res written at at, gets them by DRA; nil when it
// asks for them as an extended resource.
func (g *gpuRequests) claim(res spec.Resources, at diag.Loc, gpus int) (*ir.GPUClaim, diag.Diagnostics) {
	countAt := at // the cube's count, said at the step
	if res.GPU != nil {
		countAt = at.Field("gpu")
	}
	req, diags := g.request(res, at)
	if req == nil {
		return nil, diags
	}
	diags = append(diags, g.warnDRA(req)...)
	claim := &ir.GPUClaim{At: req.at}
	if req.SharedClaim != "" {
		claim.Shared = req.SharedClaim
		claim.Why = fmt.Sprintf("its pods share the existing ResourceClaim %s, which no limit can name", req.SharedClaim)
		return claim, diags
	}
	if gpus > maxClaimDevices {
		diags = append(diags, diag.Errorf(diag.BadGPURequest, countAt,
			"%d GPUs in one claim: Kubernetes allocates a ResourceClaim at most %d devices", gpus, maxClaimDevices).
			WithFix(fmt.Sprintf("ask for at most %d per pod (an MPI step spreads more over its workers)", maxClaimDevices)).
			WithDetail("The limit is AllocationResultsMaxSize, so the pod would never be scheduled."))
	}
	claim.Template = g.template(req, gpus)
	claim.ExtendedResourceName, claim.Why, claim.At = req.limit()
	return claim, diags
}

// request resolves the request of the mapping res written at at: its
// own deviceClass or sharedClaim, else the platform's with res's
// selector, if any, in place of the platform's; nil for an extended
// resource.
func (g *gpuRequests) request(res spec.Resources, at diag.Loc) (*gpuRequest, diag.Diagnostics) {
	own, plat := res.DeviceRequest, g.platform
	if own.DeviceClass != "" {
		own.SharedClaim = "" // refused beside it by checkDeviceFields
	}
	if f := requestField(own); f != "" {
		req := &gpuRequest{DeviceRequest: own, at: at.Field(f), selectorAt: at.Field("selector")}
		if plat != nil && plat.DeviceClass == own.DeviceClass {
			req.extendedName = plat.extendedName
		}
		return req, nil
	}
	if plat == nil {
		if own.Selector != "" {
			return nil, diag.Diagnostics{diag.Errorf(diag.BadGPURequest, at.Field("selector"),
				"selector narrows the GPUs of a device class, and neither this nor the platform's gpu: section names one").
				WithFix("add deviceClass, the DeviceClass the GPUs are of")}
		}
		return nil, nil
	}
	req := *plat
	var diags diag.Diagnostics
	if own.Selector != "" {
		req.Selector, req.selectorAt = own.Selector, at.Field("selector")
		if plat.SharedClaim != "" {
			diags = append(diags, diag.Errorf(diag.BadGPURequest, at.Field("selector"),
				"the platform's pods share the claim %s, so a selector cannot narrow its devices", plat.SharedClaim).
				WithFix("drop selector, or name a deviceClass here for a claim per pod").
				WithDetail("The devices of an existing claim were chosen when it was made."))
		}
	}
	return &req, diags
}

// limit is the extended resource that asks for r's GPUs by a plain
// limit, or why none can, and where that is written.
func (r *gpuRequest) limit() (name, why string, at diag.Loc) {
	switch {
	case r.Selector != "":
		return "", "its selector narrows the class's devices, which a limit cannot say", r.selectorAt
	case r.extendedName != "":
		return r.extendedName, "", r.at
	}
	implicit := ir.ImplicitResourcePrefix + r.DeviceClass
	if len(validation.IsQualifiedName(implicit)) > 0 {
		return "", fmt.Sprintf("the class's name is too long for the resource name Kubernetes gives it (%s and at most 63 "+
			"characters): set the platform's gpu.extendedResourceName to the class's spec.extendedResourceName",
			ir.ImplicitResourcePrefix), r.at
	}
	return implicit, "", r.at
}

// template names the template of gpus devices of r's class and
// selector, named after the pipeline and that content, and keeps it.
func (g *gpuRequests) template(r *gpuRequest, gpus int) string {
	content := map[string]string{"deviceClass": r.DeviceClass, "selector": r.Selector, "count": strconv.Itoa(gpus)}
	name := g.pipeline + "-gpu-" + contentHash(content)
	g.templates[name] = ir.ResourceClaimTemplate{Name: name, DeviceClass: r.DeviceClass,
		Selector: r.Selector, Count: gpus}
	return name
}
