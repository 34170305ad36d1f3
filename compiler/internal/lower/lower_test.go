package lower

import (
	"testing"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/spec"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// A pipeline without a name takes its first cube's; the namespace is the
// platform's, else that of its cube when it has one.
func TestPipelineMeta(t *testing.T) {
	a, b := &spec.Cube{Name: "Brain Tumor"}, &spec.Cube{Name: "b"}
	a.K8s.Namespace, b.K8s.Namespace = "team-a", "team-b"
	steps := []*spec.Step{{Cube: a}, {Cube: a}}
	lw := newLowering(&spec.Pipeline{Loc: at, Steps: steps}, &spec.Platform{Loc: at})
	if p := lw.p; p.Name != "brain-tumor" || p.Written != "Brain Tumor" || p.Namespace != "team-a" ||
		p.Labels["app.kubernetes.io/name"] != "brain-tumor" {
		t.Errorf("one cube: %+v", p)
	}
	steps = append(steps, &spec.Step{Cube: b})
	lw = newLowering(&spec.Pipeline{Loc: at, Name: "Run", Steps: steps}, &spec.Platform{Loc: at})
	if p := lw.p; p.Name != "run" || p.Namespace != "" {
		t.Errorf("two cubes: name %q, namespace %q", p.Name, p.Namespace)
	}
	lw = newLowering(&spec.Pipeline{Loc: at, Steps: steps}, &spec.Platform{Loc: at, Namespace: "ns"})
	if p := lw.p; p.Name != "brain-tumor" || p.Namespace != "ns" {
		t.Errorf("the platform's namespace: name %q, namespace %q", p.Name, p.Namespace)
	}
}

// The workspace claim is the platform's storage.pvc, else the cube's
// k8s.pvc when it is the only cube, else the pipeline's name; or one
// created for the run, of the size and class the platform gives.
func TestWorkspaceClaim(t *testing.T) {
	c := &spec.Cube{Name: "c"}
	c.K8s.PVC = "cube-claim"
	ps := &spec.Pipeline{Loc: at, Name: "run", Steps: []*spec.Step{{Cube: c}}}
	plat := diag.At(diag.Pos{File: "platform.yaml", Line: 1, Col: 1})
	for _, w := range []struct {
		storage spec.Storage
		claim   string
	}{
		{spec.Storage{PVC: "data"}, "data"}, {spec.Storage{}, "cube-claim"},
	} {
		if lw := newLowering(ps, &spec.Platform{Loc: plat, Storage: w.storage}); lw.ws.ClaimName != w.claim {
			t.Errorf("%+v: claim %q, want %q", w.storage, lw.ws.ClaimName, w.claim)
		}
	}
	two := &spec.Pipeline{Loc: at, Name: "run", Steps: []*spec.Step{{Cube: c}, {Cube: &spec.Cube{Name: "d"}}}}
	if lw := newLowering(two, &spec.Platform{Loc: plat}); lw.ws.ClaimName != "run" {
		t.Errorf("two cubes: claim %q, want the pipeline's name", lw.ws.ClaimName)
	}
	lw := newLowering(ps, &spec.Platform{Loc: plat, Storage: spec.Storage{Size: "5Gi", StorageClassName: "fast"}})
	if v := lw.ws; v.ClaimName != "" || v.Create == nil || v.Create.Size != "5Gi" || v.Create.StorageClassName != "fast" ||
		lw.sized == nil || lw.sized.Size != "5Gi" {
		t.Errorf("created: %+v, sized %+v", v, lw.sized)
	}
	lw = newLowering(ps, &spec.Platform{Loc: plat, Storage: spec.Storage{AccessModes: []string{"ReadWriteMany"}}})
	if v := lw.ws; v.Create == nil || v.Create.Size != defaultClaimSize || lw.sized != nil {
		t.Errorf("created with modes alone: %+v, sized %+v", v, lw.sized)
	}
}

// An object workspace is a volume of each pod's own, sized when the
// platform gives a size or class; it needs an object store, takes no
// access modes, and storage.pvc names the claim of the inputs no step
// writes.
func TestObjectWorkspace(t *testing.T) {
	plat := &spec.Platform{Loc: at, Storage: spec.Storage{Workspace: "object", PVC: "inputs", Size: "20Gi",
		AccessModes: []string{"ReadWriteOnce"}}}
	lw := newLowering(&spec.Pipeline{Loc: at}, plat)
	if v := lw.ws; !v.PerPod || v.Ephemeral == nil || v.Ephemeral.Size != "20Gi" || lw.dataClaim != "data" {
		t.Errorf("%+v, data claim %q", v, lw.dataClaim)
	}
	if got := fields(lw.diags); got != "storage.workspace storage.accessModes" {
		t.Errorf("refused at %q", got)
	}
	plat = &spec.Platform{Loc: at, Storage: spec.Storage{Workspace: "object"}, ObjectStore: &spec.ObjectStore{}}
	lw = newLowering(&spec.Pipeline{Loc: at}, plat)
	if v := lw.ws; !v.PerPod || v.Ephemeral != nil || lw.dataClaim != "" || lw.diags != nil {
		t.Errorf("unsized: %+v, data claim %q, %v", v, lw.dataClaim, lw.diags)
	}
}

// Steps that run one cube task share its template; another cube's task
// of the same name gets a name of its own.
func TestTemplateName(t *testing.T) {
	lw := newLowering(&spec.Pipeline{Loc: at}, &spec.Platform{Loc: at})
	a, b := &spec.Cube{Name: "a", File: "a/mlcube.yaml"}, &spec.Cube{Name: "b", File: "b/mlcube.yaml"}
	train := &spec.Task{Name: "train"}
	got := []string{lw.templateName(a, train), lw.templateName(a, train), lw.templateName(b, train)}
	if got[0] != "train" || got[1] != "train" || got[2] != "b-train" {
		t.Errorf("templates %q", got)
	}
}
