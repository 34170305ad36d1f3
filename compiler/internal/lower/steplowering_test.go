package lower

import (
	"slices"
	"testing"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/spec"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// lowering1 is the lowering of st, alone in its pipeline, on plat.
func lowering1(st *spec.Step, plat *spec.Platform) *stepLowering {
	lw := newLowering(&spec.Pipeline{Loc: at, Steps: []*spec.Step{st}}, plat)
	return &stepLowering{lowering: lw, st: st, name: st.Name, data: &stepData{names: newNameSet()},
		noParams: jobOf(st, lw.plat)}
}

// A step is placed by the platform's gpu: or cpu: section and its own
// settings: its node selector wins a key, tolerations add up, and one
// written twice but for tolerationSeconds is kept once, the first.
func TestPlacement(t *testing.T) {
	secs := int64(60)
	plat := &spec.Platform{Loc: diag.At(diag.Pos{File: "platform.yaml", Line: 1, Col: 1})}
	plat.CPU.NodeSelector = map[string]string{"pool": "cpu", "zone": "a"}
	plat.CPU.Tolerations = []spec.Toleration{{Key: "spot", Operator: "Exists", Effect: "NoExecute"}}
	plat.GPU.NodeSelector = map[string]string{"pool": "gpu"}
	st := stepAt()
	st.NodeSelector = map[string]string{"zone": "b"}
	st.Tolerations = []spec.Toleration{{Key: "spot", Operator: "Exists", Effect: "NoExecute", TolerationSeconds: &secs},
		{Key: "team", Operator: "Equal", Value: "ml"}}
	sl := lowering1(st, plat)
	sel, tols := sl.placement(false)
	if sel["pool"] != "cpu" || sel["zone"] != "b" || len(sel) != 2 {
		t.Errorf("node selector %v", sel)
	}
	want := []ir.Toleration{{Key: "spot", Operator: "Exists"}, {Key: "team", Operator: "Equal", Value: "ml"}}
	if !slices.EqualFunc(tols, want, func(a, b ir.Toleration) bool {
		return a.Key == b.Key && a.Operator == b.Operator && a.Value == b.Value && a.TolerationSeconds == nil
	}) {
		t.Errorf("tolerations %+v", tols)
	}
	if sel, _ := sl.placement(true); sel["pool"] != "gpu" || sel["zone"] != "b" {
		t.Errorf("a GPU pod's node selector %v", sel)
	}
	if sl.use.placed != [2]bool{true, true} || sl.diags != nil {
		t.Errorf("placed %v, %v", sl.use.placed, sl.diags)
	}
}

// A step's queue is its own or the platform's; a WorkloadPriorityClass
// needs one; a Dask step keeps it as a JobSet, and none as a DaskJob,
// which Kueue cannot admit.
func TestQueue(t *testing.T) {
	plat := &spec.Platform{Loc: at}
	plat.Queue, plat.WorkloadPriorityClass = "team", "high"
	st := stepAt()
	s := &ir.Step{}
	sl := lowering1(st, plat)
	sl.queue(s)
	if s.Queue != "team" || s.WorkloadPriorityClass != "high" || !sl.use.queued || sl.diags != nil {
		t.Errorf("the platform's queue: %+v, queued %v, %v", s, sl.use.queued, sl.diags)
	}
	none := ""
	st.Queue, st.WorkloadPriorityClass = &none, "urgent"
	s, sl = &ir.Step{}, lowering1(st, plat)
	sl.queue(s)
	if s.Queue != "" || sl.use.queued || fields(sl.diags) != "steps[0].workloadPriorityClass" {
		t.Errorf("out of the queue: %+v, queued %v, %v", s, sl.use.queued, sl.diags)
	}
	st = stepAt()
	st.Dask = &spec.Dask{}
	s, sl = &ir.Step{}, lowering1(st, plat)
	sl.queue(s)
	if s.Queue != "team" || s.WorkloadPriorityClass != "high" || sl.diags != nil {
		t.Errorf("a Dask step's JobSet: %+v, %v", s, sl.diags)
	}
	plat.Dask.Kind = "DaskJob"
	s, sl = &ir.Step{}, lowering1(st, plat)
	sl.queue(s)
	if s.Queue != "" || !sl.use.queued || fields(sl.diags) != "steps[0].dask" {
		t.Errorf("a Dask step: %+v, queued %v, %v", s, sl.use.queued, sl.diags)
	}
}

// A step's env merges, later winning: the cube's, docker -e, the configs,
// the envFile, the step's env, then secretEnv (the pipeline's, then the
// step's); a variable from both env and secretEnv is refused, and only
// the pipeline file's values take references.
func TestEnv(t *testing.T) {
	v := func(name, value string) spec.EnvVar {
		return spec.EnvVar{Name: name, Value: value, Loc: at.Field(name)}
	}
	st := stepAt()
	st.Cube = &spec.Cube{Env: []spec.EnvVar{v("A", "cube"), v("B", "cube"), v("R", "${params.p}")}}
	st.EnvFileVars = []spec.EnvVar{v("B", "file"), v("C", "file")}
	st.Env = []spec.EnvVar{v("C", "step"), v("D", "${params.p}"), v("S", "plain")}
	st.SecretEnv = []spec.SecretEnvVar{{Name: "S", Secret: "s", Key: "k", Loc: at.Field("S")}}
	ps := &spec.Pipeline{Loc: at, Steps: []*spec.Step{st}, Params: []*spec.PipelineParam{{Name: "p", Loc: at}},
		Configs:   []spec.ConfigEntry{{Key: "A", Value: "1"}},
		SecretEnv: []spec.SecretEnvVar{{Name: "E", Secret: "e", Key: "k", Loc: at.Field("E")}}}
	lw := newLowering(ps, &spec.Platform{Loc: at})
	sl := &stepLowering{lowering: lw, st: st, name: st.Name, data: &stepData{names: newNameSet()}}
	got := map[string]string{}
	for _, e := range sl.env(spec.DockerEffects{Env: []spec.EnvVar{v("A", "docker")}}) {
		switch {
		case e.Secret != nil:
			got[e.Name] = "secret " + e.Secret.Secret
		case e.Config != nil:
			got[e.Name] = "config " + e.Config.Key
		default:
			got[e.Name] = e.Value.Render(func(p string) string { return "<" + p + ">" })
		}
	}
	want := map[string]string{"A": "config A", "B": "file", "C": "step", "D": "<p>", "E": "secret e",
		"R": "${params.p}", "S": "secret s"}
	for k := range want {
		if got[k] != want[k] {
			t.Errorf("%s = %q, want %q", k, got[k], want[k])
		}
	}
	if !lw.refs.used["p"] || fields(lw.diags) != "S" {
		t.Errorf("used %v, refused at %q", lw.refs.used, fields(lw.diags))
	}
}

// A resources mapping lays its cpu and memory over the docker flags'; a
// platform that sets limitsEqualRequests wants both; GPUs are the
// platform's extended resource, nvidia.com/gpu by default; a DRA field
// with no GPUs asked for is refused.
func TestResources(t *testing.T) {
	plat := &spec.Platform{Loc: at, LimitsEqual: true}
	lw := newLowering(&spec.Pipeline{Loc: at}, plat)
	res := spec.Resources{CPU: "2"}
	r := lw.resources(res, at.Field("resources"), at, 1, spec.DockerEffects{CPU: "1", Memory: "1Gi"})
	if r.CPU != "2" || r.Memory != "1Gi" || r.GPU != 1 || r.GPUResource != "nvidia.com/gpu" || !r.LimitsEqualRequests ||
		lw.diags != nil || !lw.use.askedGPU {
		t.Errorf("%+v, %v", r, lw.diags)
	}
	plat.GPU.Resource = "amd.com/gpu"
	lw = newLowering(&spec.Pipeline{Loc: at}, plat)
	r = lw.resources(spec.Resources{Memory: "lots"}, at.Field("resources"), at, 2, spec.DockerEffects{})
	if r.Memory != "" || r.GPUResource != "amd.com/gpu" || fields(lw.diags) != "resources.memory resources" {
		t.Errorf("%+v, refused at %q", r, fields(lw.diags))
	}
	lw = newLowering(&spec.Pipeline{Loc: at}, &spec.Platform{Loc: at})
	res = spec.Resources{CPU: "1", Memory: "1Gi", DeviceRequest: spec.DeviceRequest{DeviceClass: "gpu.example.com"}}
	if r = lw.resources(res, at.Field("resources"), at, 0, spec.DockerEffects{}); r.GPUResource != "" ||
		fields(lw.diags) != "resources.deviceClass" || lw.use.askedGPU {
		t.Errorf("no GPUs: %+v, refused at %q", r, fields(lw.diags))
	}
}
