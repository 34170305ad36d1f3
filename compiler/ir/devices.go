package ir

import "github.com/mlcube-compile/mlcube-compile/diag"

// GPUClaim is how a pod asks for its GPUs by Dynamic Resource Allocation
// (resource.k8s.io/v1): a claim of its own made from the pipeline's
// ResourceClaimTemplate Template, or the existing ResourceClaim Shared,
// which every pod that names it shares.
type GPUClaim struct {
	// Template names one of the pipeline's ResourceClaimTemplates; empty with
	// Shared.
	Template string `json:",omitempty"`
	// Shared names an existing ResourceClaim in the run's namespace.
	Shared string `json:",omitempty"`
	// ExtendedResourceName asks for the same GPUs by a plain limit, for a
	// pod that cannot carry claims: Kubernetes' DRAExtendedResource
	// feature maps it to the class (the class's extendedResourceName, or
	// deviceclass.resource.kubernetes.io/<class>). Empty when no limit
	// can say the request, and Why says why.
	ExtendedResourceName string `json:",omitempty"`
	Why                  string `json:",omitempty"`
	// At is where the request is written: the deviceClass or sharedClaim
	// of the platform's gpu: section or of a resources mapping, or, when
	// a limit cannot say it, what keeps it from doing so.
	At diag.Loc
}

// ResourceClaimTemplate is a claim of Count devices of
// DeviceClass, matching Selector when it is set, for each pod that names
// it.
type ResourceClaimTemplate struct {
	// Name is a Kubernetes name, made of the pipeline's and the request's
	// content: a changed request gets a new template, as a template's
	// spec cannot change.
	Name        string
	DeviceClass string
	Selector    string `json:",omitempty"`
	Count       int
}

// ClaimName is the name of a GPU claim in a pod's resourceClaims and in
// its container's resources.claims; RequestName names the request for
// the GPUs in a claim made from a ResourceClaimTemplate.
const (
	ClaimName   = "gpu"
	RequestName = "gpu"
)

// ImplicitResourcePrefix names the extended resource every DeviceClass
// is, besides its own spec.extendedResourceName
// (ResourceDeviceClassPrefix, pkg/apis/resource/types.go of Kubernetes
// v1.36.3; the scheduler maps both to the class:
// k8s.io/dynamic-resource-allocation/deviceclass/extendedresourcecache,
// v0.36.3, "Always add the default mapping").
const ImplicitResourcePrefix = "deviceclass.resource.kubernetes.io/"

// UsesDRA says whether r asks for GPUs by Dynamic Resource Allocation.
func (r Resources) UsesDRA() bool { return r.GPU > 0 && r.GPUClaim != nil }
