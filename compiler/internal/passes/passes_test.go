package passes

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// Table's passes are named once each, and every pass a pass comes after
// runs before it.
func TestTableOrder(t *testing.T) {
	ran := map[string]bool{}
	for _, p := range Table {
		if ran[p.Name] || p.Name == "" || p.Run == nil || p.Needs == "" {
			t.Errorf("pass %q: named twice, or without a name, a function or what it needs", p.Name)
		}
		for _, a := range p.After {
			if !ran[a] {
				t.Errorf("pass %q comes after %q, which Table does not run before it", p.Name, a)
			}
		}
		ran[p.Name] = true
	}
}

// step is a container step that mounts volumes, after the steps named.
func step(name string, mounts []string, after ...string) *ir.Step {
	s := &ir.Step{Name: name, Written: name, Kind: ir.Container, Dependencies: after}
	for _, m := range mounts {
		s.Mounts = append(s.Mounts, ir.Mount{Volume: m, MountPath: "/mnt/" + m})
	}
	return s
}

// A created claim gets ReadWriteOnce when the steps that mount it run
// one after another, ReadWriteMany when two may run at once or a
// distributed job mounts it; modes the platform writes stand, and a
// one-node claim two steps may share at once is recorded.
func TestClaimAccess(t *testing.T) {
	created := func(modes ...string) ir.Volume {
		return ir.Volume{Name: "workspace", Create: &ir.ClaimTemplate{Size: "1Gi", AccessModes: modes}}
	}
	chain := []*ir.Step{step("a", []string{"workspace"}), step("b", []string{"workspace"}, "a")}
	fan := []*ir.Step{step("a", []string{"workspace"}), step("b", []string{"workspace"})}
	mpi := []*ir.Step{step("a", []string{"workspace"})}
	mpi[0].Kind = ir.MPI
	for _, c := range []struct {
		name       string
		steps      []*ir.Step
		vol        ir.Volume
		modes      []string
		chosen     bool
		concurrent []string
	}{
		{"chain", chain, created(), []string{"ReadWriteOnce"}, true, nil},
		{"fan", fan, created(), []string{"ReadWriteMany"}, true, nil},
		{"distributed", mpi, created(), []string{"ReadWriteMany"}, true, nil},
		{"written, fan", fan, created("ReadWriteOnce"), []string{"ReadWriteOnce"}, false, []string{"a", "b"}},
		{"written, chain", chain, created("ReadWriteOnce"), []string{"ReadWriteOnce"}, false, nil},
		{"written many, fan", fan, created("ReadWriteMany"), []string{"ReadWriteMany"}, false, nil},
	} {
		p := &ir.Pipeline{Steps: c.steps, Volumes: []ir.Volume{c.vol, {Name: "data", ClaimName: "data"}}}
		if d := ClaimAccess(p); len(d) > 0 {
			t.Errorf("%s: %v", c.name, d)
		}
		v := p.Volumes[0]
		if !slices.Equal(v.Create.AccessModes, c.modes) || v.Create.Chosen != c.chosen ||
			!slices.Equal(v.Concurrent, c.concurrent) {
			t.Errorf("%s: modes %v chosen %v concurrent %v; want %v %v %v", c.name, v.Create.AccessModes, v.Create.Chosen,
				v.Concurrent, c.modes, c.chosen, c.concurrent)
		}
		if p.Volumes[1].Create != nil || p.Volumes[1].Concurrent != nil {
			t.Errorf("%s: an existing claim was changed: %+v", c.name, p.Volumes[1])
		}
	}
}

// A schedule without a policy is Forbid when a volume outlives the run
// (an existing claim); a created claim alone leaves it, and a written
// policy stands.
func TestScheduledConcurrency(t *testing.T) {
	for _, c := range []struct {
		vols         []ir.Volume
		policy, want string
	}{
		{[]ir.Volume{{Name: "w", ClaimName: "w"}}, "", "Forbid"},
		{[]ir.Volume{{Name: "w", Create: &ir.ClaimTemplate{}}}, "", ""},
		{[]ir.Volume{{Name: "w", ClaimName: "w"}}, "Allow", "Allow"},
	} {
		p := &ir.Pipeline{Volumes: c.vols, Schedule: &ir.Schedule{ConcurrencyPolicy: c.policy}}
		ScheduledConcurrency(p)
		if got := p.Schedule.ConcurrencyPolicy; got != c.want {
			t.Errorf("%+v, policy %q: got %q, want %q", c.vols, c.policy, got, c.want)
		}
	}
	ScheduledConcurrency(&ir.Pipeline{Volumes: []ir.Volume{{Name: "w"}}}) // no schedule: nothing to do
}

// A run that fetches with no object store of the platform's gets the
// default tool image, its scratch volume sized as the fetched volume;
// the platform's store, or no fetch, is left as it is.
func TestURLFetches(t *testing.T) {
	fetching := []*ir.Step{{Name: "a", Fetches: []ir.Fetch{{Name: "x"}}}}
	sized := &ir.ClaimTemplate{Size: "50Gi", AccessModes: []string{"ReadWriteOnce"}}
	p := &ir.Pipeline{Steps: fetching, Volumes: []ir.Volume{{Name: ir.FetchedVolume, PerPod: true, Ephemeral: sized}}}
	URLFetches(p)
	want := &ir.ObjectStore{ToolImage: ir.DefaultToolImage, Scratch: sized}
	if diff := cmp.Diff(want, p.ObjectStore); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if p.ObjectStore.Scratch == sized || &p.ObjectStore.Scratch.AccessModes[0] == &sized.AccessModes[0] {
		t.Error("the scratch volume shares the fetched volume's template")
	}
	own := &ir.ObjectStore{ToolImage: "example/rclone:1"}
	p = &ir.Pipeline{Steps: fetching, ObjectStore: own}
	if URLFetches(p); p.ObjectStore != own || *own != (ir.ObjectStore{ToolImage: "example/rclone:1"}) {
		t.Errorf("the platform's store changed: %+v", p.ObjectStore)
	}
	p = &ir.Pipeline{Steps: []*ir.Step{{Name: "a"}}}
	if URLFetches(p); p.ObjectStore != nil {
		t.Errorf("no fetch, yet a store: %+v", p.ObjectStore)
	}
}

// gpuStep asks for one GPU from template tmpl, in queue.
func gpuStep(name string, kind ir.Kind, tmpl, queue string) *ir.Step {
	at := diag.At(diag.Pos{File: "platform.yaml", Line: 3, Col: 3}).Field("gpu")
	return &ir.Step{Name: name, Kind: kind, Queue: queue,
		Resources: ir.Resources{GPU: 1, GPUClaim: &ir.GPUClaim{Template: tmpl, At: at}}}
}

// The templates no claim names are dropped, the rest sorted by name; none
// left is nil.
func TestClaimTemplates(t *testing.T) {
	dask := &ir.Step{Name: "d", Kind: ir.Dask,
		Dask: &ir.DaskJob{Worker: ir.Resources{GPU: 1, GPUClaim: &ir.GPUClaim{Template: "t-b"}}}}
	p := &ir.Pipeline{Steps: []*ir.Step{gpuStep("a", ir.Container, "t-c", ""), dask},
		ResourceClaimTemplates: []ir.ResourceClaimTemplate{{Name: "t-c"}, {Name: "t-a"}, {Name: "t-b"}}}
	ClaimTemplates(p)
	var names []string
	for _, tm := range p.ResourceClaimTemplates {
		names = append(names, tm.Name)
	}
	if want := []string{"t-b", "t-c"}; !slices.Equal(names, want) {
		t.Errorf("templates %v, want %v", names, want)
	}
	p = &ir.Pipeline{Steps: []*ir.Step{{Name: "a"}}, ResourceClaimTemplates: []ir.ResourceClaimTemplate{{Name: "t-a"}}}
	if ClaimTemplates(p); p.ResourceClaimTemplates != nil {
		t.Errorf("templates %v, want nil", p.ResourceClaimTemplates)
	}
}

// A queued step that claims GPUs from a template is said once per class,
// at the request, with Tekton's limit for a container step; a queued
// TrainJob with an extended resource name gets its own warning; a step
// outside a queue, none.
func TestQueuedClaims(t *testing.T) {
	tmpl := []ir.ResourceClaimTemplate{{Name: "t", DeviceClass: "gpu.example.com"}}
	p := &ir.Pipeline{ResourceClaimTemplates: tmpl,
		Steps: []*ir.Step{gpuStep("a", ir.Container, "t", "team-a"), gpuStep("b", ir.Container, "t", "team-a"),
			gpuStep("c", ir.Container, "t", "")}}
	d := QueuedClaims(p)
	if len(d) != 1 || d[0].Code != diag.QueuedGPUClaims ||
		!strings.HasPrefix(d[0].Message, "step a runs in the Kueue queue team-a") ||
		!strings.Contains(d[0].Message, "deviceClassMappings entry for gpu.example.com") ||
		!strings.Contains(d[0].Detail, "(MLC319)") ||
		d[0].Field != "gpu" {
		t.Errorf("got %v", d)
	}
	torch := gpuStep("train", ir.Torch, "", "team-a")
	torch.Resources.GPUClaim.ExtendedResourceName = ir.ImplicitResourcePrefix + "gpu.example.com"
	d = QueuedClaims(&ir.Pipeline{Steps: []*ir.Step{torch}})
	if len(d) != 1 || d[0].Code != diag.QueuedGPUsAsLimit || !strings.Contains(d[0].Detail,
		"never by the name Kubernetes gives every class") {
		t.Errorf("got %v", d)
	}
	torch.Queue = ""
	if d := QueuedClaims(&ir.Pipeline{Steps: []*ir.Step{torch}}); len(d) != 0 {
		t.Errorf("outside a queue: %v", d)
	}
}

// A param with no value is refused when every param needs one, but with
// --step one the kept steps do not refer to; a param no step refers to is
// warned of at its value or, without --step, at the param; the params
// left to the engine are those a reference leaves to it, and, without
// --step, those no step refers to.
func TestParamValues(t *testing.T) {
	at := diag.At(diag.Pos{File: "pipeline.yaml", Line: 2, Col: 3}).Field("params")
	value := "v"
	params := func() []ir.Param {
		return []ir.Param{
			{Name: "run", Loc: at.Field("run"), Named: true, Used: true, AtRunTime: true},
			{Name: "job", Loc: at.Field("job"), Named: true, Used: true, Default: &value},
			{Name: "both", Loc: at.Field("both"), Named: true, Used: true, AtRunTime: true, Default: &value},
			{Name: "idle", Loc: at.Field("idle"), Named: true},
			{Name: "given", Loc: at.Field("given"), Named: true, Default: &value,
				Given: &ir.GivenValue{Value: "v", Loc: diag.At(diag.Pos{File: "values.yaml", Line: 1, Col: 1}).Field("given")}},
			{Name: "1bad", Loc: at.Field("1bad")},
		}
	}
	steps := []*ir.Step{{Name: "a"}}
	for _, c := range []struct {
		name       string
		fileSteps  []string
		needValues string
		want       []string
		kept       string
	}{
		{"every step", nil, "",
			[]string{"given: given=v: no step of the run refers to ${params.given}, so the value reaches no step",
				"params.idle: no step of the run refers to ${params.idle}, so the param reaches no step"},
			"run both idle given 1bad"},
		{"--step", []string{"a", "b"}, "",
			[]string{"given: given=v: no step of the run refers to ${params.given}, so the value reaches no step " +
				"(--step left out the others)"},
			"run both"},
		{"values needed", nil, "a Job has no run-time parameters",
			[]string{"given: given=v: no step of the run refers to ${params.given}, so the value reaches no step",
				"params.1bad: has no value, and a Job has no run-time parameters",
				"params.idle: has no value, and a Job has no run-time parameters",
				"params.idle: no step of the run refers to ${params.idle}, so the param reaches no step",
				"params.run: has no value, and a Job has no run-time parameters"},
			"run both idle given 1bad"},
		{"values needed, --step", []string{"a", "b"}, "a Job has no run-time parameters",
			[]string{"given: given=v: no step of the run refers to ${params.given}, so the value reaches no step " +
				"(--step left out the others)",
				"params.run: has no value, and a Job has no run-time parameters"},
			"run both"},
	} {
		p := &ir.Pipeline{Steps: steps, FileSteps: c.fileSteps, NeedValues: c.needValues, Params: params()}
		var got, kept []string
		for _, d := range ParamValues(p) {
			got = append(got, d.Field+": "+d.Message)
		}
		slices.Sort(got)
		for _, pm := range p.Params {
			kept = append(kept, pm.Name)
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s: diagnostics (-want +got):\n%s", c.name, diff)
		}
		if strings.Join(kept, " ") != c.kept {
			t.Errorf("%s: params %v, want %s", c.name, kept, c.kept)
		}
	}
	// A run of no step warns of nothing.
	p := &ir.Pipeline{Params: params()}
	if d := ParamValues(p); len(d) != 0 {
		t.Errorf("no step: %v", d)
	}
}
