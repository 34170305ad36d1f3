package lower

import (
	"testing"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/spec"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
)

// objectStep is a step of cube c running a task that reads the inputs
// and writes the outputs given, by parameter name and path.
func objectStep(c *spec.Cube, name string, line int, inputs, outputs map[string]string) *spec.Step {
	t := &spec.Task{Name: name, Loc: at.Field("tasks").Field(name)}
	for _, ps := range []struct {
		to    *[]*spec.Param
		paths map[string]string
	}{{&t.Inputs, inputs}, {&t.Outputs, outputs}} {
		for p, path := range ps.paths {
			*ps.to = append(*ps.to, &spec.Param{Name: p, Path: path, Loc: at.Field(p)})
		}
	}
	return &spec.Step{Name: name, Loc: at.Field("steps").Index(line), Cube: c, Task: t}
}

// With an object workspace each step uploads what it writes, and fetches
// what it reads from the uploads of the earlier steps that write it; an
// upload no later step fetches is final; an input no step writes needs
// storage.pvc's claim, mounted read-only where the step reads it.
func TestObjectFlow(t *testing.T) {
	c := &spec.Cube{Name: "c", File: "mlcube.yaml", Image: "img"}
	prep := objectStep(c, "prep", 0, nil, map[string]string{"out": "data/"})
	train := objectStep(c, "train", 1, map[string]string{"data": "data/part", "raw": "raw.csv"},
		map[string]string{"model": "model.bin"})
	ps := &spec.Pipeline{Loc: at, Steps: []*spec.Step{prep, train}}
	plat := &spec.Platform{Loc: at, Storage: spec.Storage{Workspace: "object"}, ObjectStore: &spec.ObjectStore{}}
	wants(t, messages(ps, plat, ""),
		`raw: with storage.workspace: object, no earlier step writes "raw.csv", so no upload holds it`)

	plat.Storage.PVC = "inputs"
	p, diags := Lower(ps, plat, "")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	byName := map[string]*ir.Step{}
	for _, s := range p.Steps {
		byName[s.Name] = s
	}
	up := byName["prep"].Uploads
	if len(up) != 1 || up[0].Name != "out" || up[0].Final || !up[0].Folder {
		t.Errorf("prep's uploads: %+v", up)
	}
	if up := byName["train"].Uploads; len(up) != 1 || !up[0].Final || up[0].Folder {
		t.Errorf("train's uploads: %+v", up)
	}
	f := byName["train"].Fetches
	if len(f) != 1 || f[0].From == nil || *f[0].From != (ir.Output{Step: "prep", Name: "out"}) || f[0].Sub != "part" ||
		f[0].Name != "prep-out" {
		t.Errorf("train's fetches: %+v", f)
	}
	var mounted bool
	for _, m := range byName["train"].Mounts {
		if m.MountPath == defaultMountPath+"/raw.csv" {
			mounted = m.ReadOnly && m.Volume == "data" && render(m.SubPath) == "raw.csv"
		}
	}
	for _, v := range p.Volumes {
		mounted = mounted && (v.Name != "data" || v.ClaimName == "inputs")
	}
	if !mounted {
		t.Errorf("raw.csv is not mounted read-only from the data claim: %+v", byName["train"].Mounts)
	}
}

// A parameter's path is on the workspace: an absolute one is in the
// container, one starting with ~ is a folder named ~, one with .. leaves
// the workspace, each warned of; an output given as a URL is refused;
// an input given as one is fetched into the fetched volume.
func TestParamPaths(t *testing.T) {
	c := &spec.Cube{Name: "c", File: "mlcube.yaml", Image: "img"}
	st := objectStep(c, "train", 0, map[string]string{"abs": "/etc/data", "home": "~/data", "up": "../up",
		"url": "https://example.com/d.tgz"}, map[string]string{"out": "https://example.com/out"})
	ps := &spec.Pipeline{Loc: at, Steps: []*spec.Step{st}}
	wants(t, messages(ps, &spec.Platform{Loc: at}, ""),
		`abs: absolute path "/etc/data" is in the container`,
		`home: path "~/data" starts with ~, which is not expanded`,
		`up: path "../up" leaves the workspace; in the container it is /mnt/up`,
		`out: "https://example.com/out" is a URL, which a step reads and never writes`)
	p, _ := Lower(ps, &spec.Platform{Loc: at}, "")
	s := p.Steps[0]
	fetched := defaultMountPath + "-fetched/url/d.tgz"
	if len(s.Fetches) != 1 || s.Fetches[0].Name != "url" || render(s.Fetches[0].Path) != fetched {
		t.Errorf("fetches: %+v", s.Fetches)
	}
	args := map[string]string{}
	for _, a := range s.Args {
		args[a.Param] = render(a.Value)
	}
	if args["abs"] != "/etc/data" || args["home"] != defaultMountPath+"/~/data" || args["url"] != fetched {
		t.Errorf("args: %v", args)
	}
}
