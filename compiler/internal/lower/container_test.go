package lower

import (
	"testing"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/spec"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
)

// medperfStep is a step of a MedPerf container whose task has the
// volumes given, each at its mount path, at the location path.
func medperfStep(inputs, outputs [][3]string) *spec.Step {
	t := &spec.Task{Name: "infer", Loc: at.Field("tasks").Field("infer"), Run: &spec.RunArgs{Entrypoint: "/run.sh"}}
	for _, vs := range []struct {
		to   *[]*spec.Param
		list [][3]string
	}{{&t.Inputs, inputs}, {&t.Outputs, outputs}} {
		for _, v := range vs.list {
			*vs.to = append(*vs.to, &spec.Param{Name: v[0], MountPath: v[1], Path: v[2], Dir: v[1][len(v[1])-1] == '/',
				Loc: at.Field(v[0])})
		}
	}
	c := &spec.Cube{Name: "c", File: "container_config.yaml", Image: "img", Container: true}
	return &spec.Step{Name: "infer", Loc: at.Field("steps").Index(0), Cube: c, Task: t}
}

// A MedPerf volume is mounted from the workspace where its location
// says, inputs read-only; an absolute location, or one that leaves the
// workspace, is refused; an output file is mounted by its folder, so its
// location ends in its mount path's file name, and its folder may not be
// where another volume is mounted.
func TestVolumeMounts(t *testing.T) {
	st := medperfStep([][3]string{{"data", "/data/", "in/data"}},
		[][3]string{{"preds", "/out/preds.csv", "results/preds.csv"}})
	p, diags := Lower(&spec.Pipeline{Loc: at, Steps: []*spec.Step{st}}, &spec.Platform{Loc: at}, "")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	want := map[string]ir.Mount{
		"/data": {Volume: "workspace", MountPath: "/data", Name: "data", SubPath: ir.Lit("in/data"), ReadOnly: true},
		"/out":  {Volume: "workspace", MountPath: "/out", Name: "preds", SubPath: ir.Lit("results")},
	}
	for _, m := range p.Steps[0].Mounts {
		if w, ok := want[m.MountPath]; !ok || render(w.SubPath) != render(m.SubPath) || w.ReadOnly != m.ReadOnly ||
			w.Name != m.Name {
			t.Errorf("mount %+v, want %+v", m, w)
		}
	}
	if len(p.Steps[0].Mounts) != len(want) {
		t.Errorf("mounts %+v", p.Steps[0].Mounts)
	}
	st = medperfStep([][3]string{{"abs", "/a/", "/etc/a"}, {"up", "/b/", "../b"}, {"data", "/data/", "d"}},
		[][3]string{{"preds", "/out/preds.csv", "results/other.csv"}, {"log", "/data/log.txt", "logs/log.txt"}})
	wants(t, messages(&spec.Pipeline{Loc: at, Steps: []*spec.Step{st}}, &spec.Platform{Loc: at}, ""),
		`abs: "/etc/a" is absolute: a volume is mounted from the workspace claim`,
		`up: "../b" leaves the workspace`,
		`preds: an output file's location must end in "preds.csv", the file name of its mount_path`,
		`an output file is mounted by its folder, and volume data is mounted at /data already`)
}
