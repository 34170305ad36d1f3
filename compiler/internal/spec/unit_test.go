package spec

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/source"
	"github.com/mlcube-compile/mlcube-compile/diag"
	"github.com/mlcube-compile/mlcube-compile/schema"
)

// loadCubeText compiles a cube given as text and returns it with the
// diagnostics, for tests of the front end.
func loadCubeText(t *testing.T, text string) (*Cube, diag.Diagnostics) {
	t.Helper()
	files := source.New(fstest.MapFS{"cube/mlcube.yaml": {Data: []byte(text)}})
	s, err := schema.Load()
	if err != nil {
		t.Fatal(err)
	}
	var c *Cube
	var diags diag.Diagnostics
	s.Do(func(sc *schema.Context) {
		l := newLoader(sc, files)
		c = l.cube("cube", source.Flag("--mlcube"))
		diags = l.diags
	})
	return c, diags
}

func TestReferences(t *testing.T) {
	_, diags := loadCubeText(t, `name: mnist
docker: {image: "mlcommons/${name}:0.0.1"}
k8s: {pvc: "${name}", image: "${docker.image}"}
platform: {accelerator_count: "${gpus}"}
gpus: 2
tasks:
  train:
    parameters: {inputs: {cfg: "\\${literal}/x"}}
`)
	// gpus: is not an MLCube key, so MLCube ignores it (a warning); the references still resolve.
	if len(diags) != 1 || diags.HasErrors() || !strings.Contains(diags[0].String(), "gpus: not read") {
		t.Fatalf("diagnostics: %v", diags)
	}
	c, diags := loadCubeText(t, `name: mnist
docker: {image: "mlcommons/${name}:0.0.1"}
k8s: {pvc: "${name}", image: "${docker.image}"}
tasks:
  train:
    parameters: {inputs: {cfg: "\\${literal}/x"}}
`)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if c.Image != "mlcommons/mnist:0.0.1" || c.K8s.Image != c.Image || c.K8s.PVC != "mnist" {
		t.Fatalf("image %q k8s %+v", c.Image, c.K8s)
	}
	if got := c.Tasks[0].Inputs[0].Path; got != "${literal}/x" {
		t.Fatalf("escaped reference became %q", got)
	}
}

func TestReferenceTypesAndErrors(t *testing.T) {
	c, diags := loadCubeText(t, `name: n
platform: {accelerator_count: "${docker.build_args.gpus}"}
docker: {image: i, build_args: {gpus: 2}}
tasks: {t: {}}
`)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if c.AcceleratorCount != 2 {
		t.Fatalf("a whole-string reference to a number should keep its type, got %d", c.AcceleratorCount)
	}
	_, diags = loadCubeText(t, `name: "${description}"
description: "${name}"
docker: {image: "${oc.env:HOME}", env_args: {A: "${docker}"}}
tasks: {t: {}}
`)
	got := diags.Error()
	for _, want := range []string{"reference cycle", "resolvers such as oc.env are not supported",
		"refers to a mapping or list"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
}

// MLCube's own keys resolve as create_mlcube_config sets them (issue 32,
// point 4): ${workspace}, ${runtime.workspace} and ${runtime.root}/workspace
// are the workspace, so a parameter's path under them is its path in the
// workspace; another path under ${runtime.root}, the cube's folder, is
// refused in a parameter and harmless where nothing reads it.
func TestMLCubeOwnKeys(t *testing.T) {
	c, diags := loadCubeText(t, `name: ws
docker: {image: x/ws:1, build_context: "${runtime.root}/build"}
tasks:
  train:
    parameters:
      inputs: {data: "${workspace}/data/", cfg: {default: "${runtime.workspace}/cfg.yaml"}, all: "${workspace}", `+
		`d2: "${runtime.root}/workspace/d2/"}
      outputs: {out: {type: directory, default: "${runtime.root}/workspace"}}
`)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var got []string
	for _, p := range append(c.Tasks[0].Inputs, c.Tasks[0].Outputs...) {
		got = append(got, p.Name+"="+p.Path)
	}
	want := []string{"data=./data/", "cfg=./cfg.yaml", "all=.", "d2=./d2/", "out=."}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("paths %v, want %v", got, want)
	}
	_, diags = loadCubeText(t, `name: ws
docker: {image: x/ws:1}
tasks: {train: {parameters: {inputs: {models: "${runtime.root}/models"}}}}
`)
	if len(diags) != 1 || !strings.Contains(diags[0].String(),
		"tasks.train.parameters.inputs.models: ${runtime.root} is the cube's folder") {
		t.Fatalf("diagnostics: %v", diags)
	}
}
