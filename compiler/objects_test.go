package compiler

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
)

// objectPlatform is a platform whose steps move data through a bucket.
const objectPlatform = `storage: {workspace: object}
objectStore:
  s3:
    endpoint: minio.storage:9000
    bucket: results
    accessKeySecret: {name: s3, key: accessKey}
    secretKeySecret: {name: s3, key: secretKey}
`

// compileObject compiles a cube of the given tasks on objectPlatform.
func compileObject(t *testing.T, tasks string) *ir.Pipeline {
	t.Helper()
	dir := t.TempDir()
	cube := "name: demo\ndocker: {image: example/demo:1}\ntasks:\n" + tasks
	for name, text := range map[string]string{"mlcube.yaml": cube, "platform.yaml": objectPlatform} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, diags := Compile(Options{MLCube: dir, Platform: filepath.Join(dir, "platform.yaml")})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	return p
}

// fetchSummary is a fetch as the tests compare it.
type fetchSummary struct{ Name, From, Sub, Path string }

func fetchesOf(p *ir.Pipeline, step string) []fetchSummary {
	var out []fetchSummary
	for _, s := range p.Steps {
		if s.Name != step {
			continue
		}
		for _, f := range s.Fetches {
			from := ""
			if f.From != nil {
				from = f.From.Step + "/" + f.From.Name
			}
			out = append(out, fetchSummary{f.Name, from, f.Sub, f.Path.Render(func(string) string { return "?" })})
		}
	}
	return out
}

// A step reading a folder inside what another wrote fetches that part of
// the upload; one reading a folder that holds what others wrote fetches
// each of their uploads into its place, in their order.
func TestObjectWorkspaceFetchesByPathFlow(t *testing.T) {
	p := compileObject(t, `  prepare:
    parameters:
      outputs: {data_dir: {type: directory, default: data/}}
  split:
    parameters:
      inputs: {data_dir: {type: directory, default: data/}}
      outputs: {model_dir: {type: directory, default: out/model/}, metrics: {type: file, default: out/metrics.json}}
  report:
    parameters:
      inputs: {train_dir: {type: directory, default: data/train/}, out_dir: {type: directory, default: out/}}
      outputs: {report: {type: file, default: report.md}}
`)
	want := []fetchSummary{
		{"prepare-data-dir", "prepare/data-dir", "train", "/mnt/mlcube/data/train"},
		{"split-model-dir", "split/model-dir", "", "/mnt/mlcube/out/model"},
		{"split-metrics", "split/metrics", "", "/mnt/mlcube/out/metrics.json"},
	}
	if diff := cmp.Diff(want, fetchesOf(p, "report")); diff != "" {
		t.Errorf("report's fetches (-want +got):\n%s", diff)
	}
	for _, s := range p.Steps {
		for _, u := range s.Uploads {
			// Only report's upload is fetched by no later step.
			if u.Final != (s.Name == "report") {
				t.Errorf("step %s upload %s: Final %v", s.Name, u.Name, u.Final)
			}
		}
	}
	for _, v := range p.Volumes {
		if v.ClaimName != "" || v.Create != nil || !v.PerPod {
			t.Errorf("volume %+v: want only volumes of each pod's own", v)
		}
	}
}

// An input given as a URL is fetched into a folder of its own, the file
// or the folder the URL names passed to the container, with its digest.
func TestURLInputs(t *testing.T) {
	const sum = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	p := compileObject(t, `  train:
    parameters:
      inputs:
        data: {type: directory, default: "s3://datasets/mnist/"}
        config: {type: file, default: "https://example.com/c/train.yaml#sha256=`+sum+`"}
      outputs: {model: {type: directory, default: model/}}
`)
	s := p.Steps[0]
	var got []string
	for _, a := range s.Args {
		got = append(got, a.Prefix+a.Value.Render(nil))
	}
	want := []string{"train", "--data=/mnt/mlcube-fetched/data", "--config=/mnt/mlcube-fetched/config/train.yaml",
		"--model=/mnt/mlcube/model"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("args (-want +got):\n%s", diff)
	}
	if len(s.Fetches) != 2 || s.Fetches[0].URL.Bucket != "datasets" || !s.Fetches[0].URL.Folder ||
		s.Fetches[1].URL.SHA256 != sum || s.Fetches[1].URL.Raw != "https://example.com/c/train.yaml" {
		t.Errorf("fetches: %+v %+v", s.Fetches[0].URL, s.Fetches[1].URL)
	}
	for _, m := range s.Mounts {
		if m.Volume == "fetched" && !m.ReadOnly {
			t.Errorf("the fetched inputs are mounted writable: %+v", m)
		}
	}
}

// A MedPerf folder volume given as a URL is fetched into a folder of its
// own, mounted read-only at the volume's mount path; a file volume
// cannot be (its file is mounted before anything is fetched).
func TestMedPerfVolumeURL(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"cube/container_config.yaml": "container_type: DockerImage\nimage: example/m:1\ntasks:\n  evaluate:\n" +
			"    input_volumes:\n" +
			"      labels: {mount_path: /io/labels, type: directory}\n" +
			"      params: {mount_path: /io/p/params.yaml, type: file}\n" +
			"    output_volumes:\n      out: {mount_path: /io/out, type: directory}\n",
		"pipeline.yaml": "name: m\ncubes: {c: ./cube}\nsteps:\n  evaluate:\n    cube: c\n    task: evaluate\n" +
			"    inputs: {labels: \"s3://datasets/labels/\", params: params.yaml}\n    outputs: {out: out/}\n",
		"platform.yaml": strings.Replace(objectPlatform, "{workspace: object}", "{workspace: object, pvc: data}", 1),
	}
	for name, text := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, diags := Compile(Options{Task: filepath.Join(dir, "pipeline.yaml"), Platform: filepath.Join(dir, "platform.yaml")})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	s := p.Steps[0]
	if len(s.Fetches) != 1 || s.Fetches[0].Path.Render(nil) != "/io/labels" || s.Fetches[0].URL.Key != "labels/" {
		t.Fatalf("fetches %+v", s.Fetches)
	}
	i := slices.IndexFunc(s.Mounts, func(m ir.Mount) bool { return m.MountPath == "/io/labels" })
	if i < 0 || s.Mounts[i].Volume != "fetched" || !s.Mounts[i].ReadOnly || s.Mounts[i].SubPath.Render(nil) != "labels" {
		t.Errorf("labels mounted as %+v", s.Mounts)
	}
	// params.yaml, which no step writes, is mounted read-only from the
	// claim storage.pvc names, in place of the workspace's.
	i = slices.IndexFunc(s.Mounts, func(m ir.Mount) bool { return m.MountPath == "/io/p/params.yaml" })
	if i < 0 || s.Mounts[i].Volume != "data" || !s.Mounts[i].ReadOnly {
		t.Errorf("params mounted as %+v", s.Mounts)
	}
	files["pipeline.yaml"] = strings.Replace(files["pipeline.yaml"], "params: params.yaml",
		`params: "https://example.com/params.yaml"`, 1)
	if err := os.WriteFile(filepath.Join(dir, "pipeline.yaml"), []byte(files["pipeline.yaml"]), 0o644); err != nil {
		t.Fatal(err)
	}
	_, diags = Compile(Options{Task: filepath.Join(dir, "pipeline.yaml"), Platform: filepath.Join(dir, "platform.yaml")})
	if !strings.Contains(diags.Error(), "volume params is a file") {
		t.Errorf("a file volume given as a URL: %v", diags)
	}
}

// A run that fetches only HTTP(S) URLs on a platform with no object
// store still names the image its fetches run in.
func TestHTTPInputsNeedNoStore(t *testing.T) {
	dir := t.TempDir()
	cube := "name: h\ndocker: {image: example/h:1}\ntasks:\n  train:\n    parameters:\n" +
		"      inputs: {cfg: \"https://example.com/train.yaml\"}\n"
	if err := os.WriteFile(filepath.Join(dir, "mlcube.yaml"), []byte(cube), 0o644); err != nil {
		t.Fatal(err)
	}
	p, diags := Compile(Options{MLCube: dir})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	if s := p.ObjectStore; s == nil || s.ToolImage == "" || s.S3 != nil || p.Engines["argo"] != nil {
		t.Errorf("object store %+v, want only the tool image", s)
	}
}
