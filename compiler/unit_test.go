package compiler

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/mlcube-compile/mlcube-compile/compiler/source"
	"github.com/mlcube-compile/mlcube-compile/diag"
	"github.com/mlcube-compile/mlcube-compile/schema"
)

// loadCubeText compiles a cube given as text and returns it with the
// diagnostics, for tests of the front end.
func loadCubeText(t *testing.T, text string) (*cube, diag.Diagnostics) {
	t.Helper()
	files := source.New(fstest.MapFS{"cube/mlcube.yaml": {Data: []byte(text)}})
	s, err := schema.Load()
	if err != nil {
		t.Fatal(err)
	}
	s.Lock()
	defer s.Unlock()
	l := newLoader(s, files)
	c := l.cube("cube", source.Flag("--mlcube"))
	return c, l.diags
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
	// gpus: is not an MLCube key, so the schema refuses it; the references still resolve.
	if len(diags) != 1 || !strings.Contains(diags[0].String(), "gpus: unknown field") {
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
	for _, want := range []string{"reference cycle", "resolvers such as oc.env are not supported", "refers to a mapping or list"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
}

func TestNameSet(t *testing.T) {
	ns := newNameSet()
	var got []string
	for _, n := range []string{"Download_Data", "download-data", "download data", "train"} {
		c, ok := ns.take(n, n)
		if !ok {
			t.Fatalf("%q refused", n)
		}
		got = append(got, c)
	}
	if strings.Join(got, ",") != "download-data,download-data-2,download-data-3,train" {
		t.Fatalf("got %v", got)
	}
	if _, ok := ns.take("__", "__"); ok {
		t.Fatal("a name with no letters or digits was accepted")
	}
	long := strings.Repeat("x", 100)
	if c, _ := ns.take(long, long); len(c) > maxNameLen {
		t.Fatalf("name of %d characters", len(c))
	}
	if v := labelValue("MLCommons FeTS/v1"); v != "MLCommons-FeTS-v1" {
		t.Fatalf("label value %q", v)
	}
}

func TestDockerArgs(t *testing.T) {
	at := source.Flag("docker").Field("gpu_args")
	fx, diags := mapDockerArgs(dockerArgs{Text: `--gpus=2 --shm-size 1G --ipc=host -v /data:/data -e "A=b c" --cpus=4 --memory=8g`, Loc: at})
	if fx.gpus == nil || *fx.gpus != 2 || fx.shmSize != "1Gi" || fx.cpu != "4" || fx.memory != "8Gi" {
		t.Fatalf("effects %+v", fx)
	}
	if len(fx.env) != 1 || fx.env[0].Name != "A" || fx.env[0].Value != "b c" {
		t.Fatalf("env %+v", fx.env)
	}
	warnings := diags.Warnings()
	if len(warnings) != 2 || !strings.Contains(warnings[0].Message, "--ipc=host") || !strings.Contains(warnings[1].Message, "-v=/data:/data") {
		t.Fatalf("warnings %v", warnings)
	}
	_, diags = mapDockerArgs(dockerArgs{Text: `--shm-size=lots --gpus=x "unclosed`, Loc: at})
	if !diags.HasErrors() {
		t.Fatal("bad flags were accepted")
	}
}
