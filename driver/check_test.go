package driver

import (
	"errors"
	"slices"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/compiler"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
	"github.com/mlcube-compile/mlcube-compile/internal/examples"
)

// perRunClaim is a cube whose platform asks for a claim per run, which
// every backend warns about: the examples, clean under lint --strict for
// Argo and Job, give those two none.
var perRunClaim = fstest.MapFS{
	"per-run/mlcube.yaml": {Data: []byte("name: per-run\ndocker: {image: example/train:1}\ntasks:\n" +
		"  train: {parameters: {outputs: {model_dir: model/}}}\n")},
	"per-run/platform.yaml": {Data: []byte("storage: {size: 1Gi}\n")},
}

// checkEngines for one backend finds that backend's warnings only; for all of
// them, every backend's. Each warning is at a line of a spec file, with a
// field path, never a backend's name in place of one.
func TestCheckOneBackend(t *testing.T) {
	t.Chdir("..")
	list, err := examples.List(".")
	if err != nil || len(list) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	seen := map[string]int{}
	runs := []compiler.Options{{MLCube: "per-run", Platform: "per-run/platform.yaml", FS: perRunClaim}}
	names := []string{"per-run"}
	for _, ex := range list {
		runs = append(runs, compiler.Options{MLCube: ex.MLCube, Task: ex.Task, Platform: ex.Platform, Values: ex.Values})
		names = append(names, ex.Name)
	}
	for i, opts := range runs {
		name := names[i]
		p, diags := compiler.Compile(opts)
		if diags.HasErrors() {
			t.Fatalf("%s: %v", name, diags)
		}
		var each diag.Diagnostics
		for _, backend := range Backends() {
			found := checkEngines(p, []string{backend})
			for _, d := range found {
				seen[backend]++
				if d.Engine != backend {
					t.Errorf("%s, --backend %s: another backend's %v", name, backend, d)
				}
				if d.Pos.Line == 0 || d.Field == "" || slices.Contains(Backends(), d.Field) {
					t.Errorf("%s, --backend %s: not at a spec field: %#v", name, backend, d)
				}
			}
			each = append(each, found...)
		}
		if diff := cmp.Diff(checkEngines(p, nil).Sorted(), each.Sorted()); diff != "" {
			t.Errorf("%s: every backend (-want) against each on its own (+got):\n%s", name, diff)
		}
	}
	for _, backend := range Backends() {
		if seen[backend] == 0 {
			t.Errorf("no example gives a %s warning; the test checks nothing for it", backend)
		}
	}
}

// An unknown backend is a usage error that lists the backends.
func TestCheckBackends(t *testing.T) {
	if err := CheckBackends([]string{"argo", "job"}); err != nil {
		t.Errorf("argo, job: %v", err)
	}
	err := CheckBackends([]string{"tekton", "kubeflow"})
	var usage UsageError
	if want := `unknown backend "kubeflow" (backends: argo, tekton, job)`; !errors.As(err, &usage) || err.Error() != want {
		t.Errorf("kubeflow: %v, want the usage error %q", err, want)
	}
}

// A warning about a flag names the flag, as a flag, not a field.
func TestJobRBACWarningNamesTheFlag(t *testing.T) {
	p := &ir.Pipeline{Source: "pipeline.yaml",
		Steps: []*ir.Step{{Name: "train", Kind: ir.Container, Image: "example/train:1"}}}
	res, err := Emit(p, Request{Backend: "job", Emit: emit.Options{RBAC: true}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 1 || res.Warnings[0].Flag != "--emit-rbac" || res.Warnings[0].Field != "" ||
		res.Warnings[0].Origin() != diag.FromFlag {
		t.Errorf("warnings %#v, want one about --emit-rbac", res.Warnings)
	}
}
