package lower

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/spec"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// gpuStep is a step named name of a cube whose task asks for gpus GPUs,
// with resources res.
func gpuStep(name string, gpus int, res spec.Resources) *spec.Step {
	cube := &spec.Cube{Name: "c", Image: "example/c:1", AcceleratorCount: gpus}
	task := &spec.Task{Name: "train", Loc: at.Field("tasks").Field("train")}
	return &spec.Step{Name: name, Loc: at.Field("steps").Field(name), Cube: cube, Task: task, Resources: res}
}

// draPlatform asks for GPUs of class by DRA.
func draPlatform(req spec.DeviceRequest, extended string) *spec.Platform {
	plat := &spec.Platform{Loc: at}
	plat.GPU.DeviceRequest, plat.GPU.ExtendedResourceName = req, extended
	return plat
}

// The platform's class gives every GPU step a claim of its own from one
// template per distinct request (class, selector, count), named after its
// content; a step's own class wins, with the class's implicit resource
// name for a limit unless it is the platform's; a step's selector
// narrows the platform's class. The warning is said once per request.
func TestGPUClaimTemplates(t *testing.T) {
	two := 2
	steps := []*spec.Step{
		gpuStep("a", 1, spec.Resources{}),
		gpuStep("b", 1, spec.Resources{}),
		gpuStep("c", 1, spec.Resources{GPU: &two}),
		gpuStep("d", 1, spec.Resources{DeviceRequest: spec.DeviceRequest{Selector: `device.driver == "x"`}}),
		gpuStep("e", 1, spec.Resources{DeviceRequest: spec.DeviceRequest{DeviceClass: "mig.example.com"}}),
		gpuStep("f", 0, spec.Resources{}),
	}
	p, diags := Lower(&spec.Pipeline{Loc: at, Name: "run", Steps: steps},
		draPlatform(spec.DeviceRequest{DeviceClass: "gpu.example.com"}, "example.com/gpu"), "")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	claims := map[string]*ir.GPUClaim{}
	for _, s := range p.Steps {
		claims[s.Name] = s.Resources.GPUClaim
		if s.Resources.GPUResource != "" {
			t.Errorf("step %s asks for %s besides its claim", s.Name, s.Resources.GPUResource)
		}
	}
	tmpl := func(name string) ir.ResourceClaimTemplate {
		for _, t := range p.ResourceClaimTemplates {
			if t.Name == name {
				return t
			}
		}
		return ir.ResourceClaimTemplate{}
	}
	got := map[string]ir.ResourceClaimTemplate{}
	for _, s := range []string{"a", "b", "c", "d", "e"} {
		got[s] = tmpl(claims[s].Template)
	}
	want := map[string]ir.ResourceClaimTemplate{
		"a": {DeviceClass: "gpu.example.com", Count: 1}, "b": {DeviceClass: "gpu.example.com", Count: 1},
		"c": {DeviceClass: "gpu.example.com", Count: 2},
		"d": {DeviceClass: "gpu.example.com", Selector: `device.driver == "x"`, Count: 1},
		"e": {DeviceClass: "mig.example.com", Count: 1},
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(ir.ResourceClaimTemplate{}, "Name")); diff != "" {
		t.Errorf("templates (-want +got):\n%s", diff)
	}
	if len(p.ResourceClaimTemplates) != 4 || claims["a"].Template != claims["b"].Template || claims["f"] != nil {
		t.Errorf("want 4 templates, a and b sharing one, f none; got %v and %+v", p.ResourceClaimTemplates, claims)
	}
	limits := map[string]string{}
	for name, c := range claims {
		if c != nil {
			limits[name] = c.ExtendedResourceName
		}
	}
	wantLimits := map[string]string{"a": "example.com/gpu", "b": "example.com/gpu", "c": "example.com/gpu", "d": "",
		"e": "deviceclass.resource.kubernetes.io/mig.example.com"}
	if diff := cmp.Diff(wantLimits, limits); diff != "" {
		t.Errorf("limits (-want +got):\n%s", diff)
	}
	if claims["d"].At.Path() != "steps.d.resources.selector" {
		t.Errorf("d's limit is refused at %s, want its selector", claims["d"].At.Path())
	}
	var warned []string
	for _, d := range diags {
		if d.Code == diag.GPUsByDRA {
			warned = append(warned, d.Field)
		}
	}
	if diff := cmp.Diff([]string{"gpu.deviceClass", "steps.e.resources.deviceClass"}, warned,
		cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		t.Errorf("MLC307 warnings (-want +got):\n%s", diff)
	}
}

// Every request that cannot work is refused at the field to change.
func TestGPURequestErrors(t *testing.T) {
	zero, many := 0, 33
	platform := func(req spec.DeviceRequest, resource, extended string) *spec.Platform {
		plat := draPlatform(req, extended)
		plat.GPU.Resource = resource
		return plat
	}
	for _, c := range []struct {
		plat *spec.Platform
		res  spec.Resources
		want string
	}{
		{platform(spec.DeviceRequest{DeviceClass: "g"}, "nvidia.com/gpu", ""), spec.Resources{},
			"gpu.resource: resource asks for GPUs as an extended resource, and deviceClass by Dynamic Resource " +
				"Allocation: keep one"},
		{platform(spec.DeviceRequest{Selector: "true"}, "", ""), spec.Resources{},
			"gpu.selector: selector narrows the GPUs of a device class, and gpu: names none"},
		{platform(spec.DeviceRequest{}, "", "example.com/gpu"), spec.Resources{},
			"gpu.extendedResourceName: extendedResourceName is the resource name of deviceClass's DeviceClass"},
		{platform(spec.DeviceRequest{DeviceClass: "g"}, "", "kubernetes.io/gpu"), spec.Resources{},
			`gpu.extendedResourceName: "kubernetes.io/gpu" is not an extended resource name`},
		{platform(spec.DeviceRequest{DeviceClass: "g", SharedClaim: "s"}, "", ""), spec.Resources{},
			"gpu.sharedClaim: sharedClaim names an existing claim"},
		{platform(spec.DeviceRequest{SharedClaim: "s", Selector: "true"}, "", ""), spec.Resources{},
			"gpu.selector: the shared claim s already holds its devices"},
		{platform(spec.DeviceRequest{DeviceClass: "g", Selector: "gpu == 1"}, "", ""), spec.Resources{},
			`gpu.selector: not a device selector the API server compiles: column 1: "gpu" is no name the selector knows`},
		{platform(spec.DeviceRequest{}, "", ""), spec.Resources{DeviceRequest: spec.DeviceRequest{Selector: "true"}},
			"steps.s.resources.selector: selector narrows the GPUs of a device class, and neither this nor the platform's " +
				"gpu: section names one"},
		{platform(spec.DeviceRequest{SharedClaim: "s"}, "", ""),
			spec.Resources{DeviceRequest: spec.DeviceRequest{Selector: "true"}},
			"steps.s.resources.selector: the platform's pods share the claim s"},
		{platform(spec.DeviceRequest{}, "", ""),
			spec.Resources{GPU: &zero, DeviceRequest: spec.DeviceRequest{DeviceClass: "g"}},
			"steps.s.resources.deviceClass: deviceClass says how GPUs are asked for, and this asks for none"},
		{platform(spec.DeviceRequest{DeviceClass: "g"}, "", ""), spec.Resources{GPU: &many},
			"steps.s.resources.gpu: 33 GPUs in one claim: Kubernetes allocates a ResourceClaim at most 32 devices"},
	} {
		wants(t, messages(&spec.Pipeline{Loc: at, Name: "run", Steps: []*spec.Step{gpuStep("s", 1, c.res)}},
			c.plat, ""), c.want)
	}
}

// A DaskJob's worker asks for GPUs by DRA as the class's extended
// resource, since a DaskJob's pods cannot carry claims, with a warning
// (its unused template is dropped by passes.ClaimTemplates); a request no
// limit can say is refused at what keeps it. A JobSet's worker claims
// them.
func TestDaskWorkerGPUsAsLimit(t *testing.T) {
	one := 1
	dask := func(sel string) *spec.Pipeline {
		st := &spec.Step{Name: "bench", Loc: at.Field("steps").Field("bench"),
			Dask: &spec.Dask{Function: "m.f", Image: "dask:1", Workers: 2,
				Worker: &spec.Resources{GPU: &one, DeviceRequest: spec.DeviceRequest{Selector: sel}}}}
		st.Dask.Output.Path = "out.csv"
		return &spec.Pipeline{Loc: at, Name: "run", Steps: []*spec.Step{st}}
	}
	jobSet := draPlatform(spec.DeviceRequest{DeviceClass: "gpu.example.com"}, "")
	p, diags := Lower(dask(""), jobSet, "")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if w := p.Steps[0].Dask.Worker; w.GPUClaim == nil || w.GPUResource != "" {
		t.Errorf("a JobSet's worker asks for %+v, not a claim", w)
	}
	operator := func() *spec.Platform {
		plat := draPlatform(spec.DeviceRequest{DeviceClass: "gpu.example.com"}, "")
		plat.Dask.Kind = "DaskJob"
		return plat
	}
	p, diags = Lower(dask(""), operator(), "")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	want := ir.Resources{GPU: 1, GPUResource: "deviceclass.resource.kubernetes.io/gpu.example.com"}
	if diff := cmp.Diff(want, p.Steps[0].Dask.Worker); diff != "" {
		t.Errorf("worker (-want +got):\n%s", diff)
	}
	wants(t, messages(dask(""), operator(), ""),
		"steps.bench.dask.worker: the Dask workers ask for their GPUs as the limit "+
			"deviceclass.resource.kubernetes.io/gpu.example.com")
	wants(t, messages(dask("true"), operator(), ""),
		"steps.bench.dask.worker.selector: the Dask workers cannot ask for their GPUs as a limit: its selector narrows "+
			"the class's devices")
}
