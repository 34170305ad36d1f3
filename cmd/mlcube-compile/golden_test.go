package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// repoRoot is where examples/ and testdata/ live, two levels up.
const repoRoot = "../.."

// exampleArgs gives the flags an example is compiled with, by convention:
// a pipeline.yaml goes to --task, a platform.yaml to --platform, and a
// legacy cube is given its docker platform and invoke file explicitly.
func exampleArgs(dir string) []string {
	var args []string
	exists := func(name string) bool {
		_, err := os.Stat(filepath.Join(dir, name))
		return err == nil
	}
	if exists("mlcube.yaml") {
		args = append(args, "--mlcube", dir)
	}
	if exists("pipeline.yaml") {
		args = append(args, "--task", filepath.Join(dir, "pipeline.yaml"))
	}
	if exists("platform.yaml") {
		args = append(args, "--platform", filepath.Join(dir, "platform.yaml"))
	}
	if exists("platforms/docker.yaml") && exists("run/kubernetes.yaml") {
		args = append(args, "--platform", filepath.Join(dir, "platforms/docker.yaml"), "--task", filepath.Join(dir, "run/kubernetes.yaml"))
	}
	return args
}

// compileArgs runs the command and returns stdout, stderr and the exit code.
func compileArgs(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return stdout.String(), stderr.String(), code
}

func TestGolden(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(repoRoot, "examples", "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	for _, backend := range backendNames {
		for _, dir := range dirs {
			name := filepath.Base(dir)
			t.Run(backend+"/"+name, func(t *testing.T) {
				args := append([]string{"mlcube-compile", "--backend", backend}, exampleArgs(dir)...)
				golden := filepath.Join(repoRoot, "testdata", "golden", backend, name+".yaml")
				first, stderr, code := compileArgs(t, args...)
				if code != 0 && notForBackend(stderr) {
					if _, err := os.Stat(golden); err == nil {
						t.Errorf("%s does not apply to %s, but %s exists", name, backend, golden)
					}
					t.Skipf("not for this backend: %s", stderr)
				}
				if code != 0 {
					t.Fatalf("exit %d: %s", code, stderr)
				}
				second, _, _ := compileArgs(t, args...)
				if first != second {
					t.Fatalf("two compiles of the same inputs differ")
				}
				compareGolden(t, golden, first)
				validators[backend](t, golden, first)
			})
		}
	}
}

// notForBackend recognises the job backend's refusal of several steps.
func notForBackend(stderr string) bool {
	return strings.Contains(stderr, "--backend: a Job runs one task")
}

// compareGolden compares got with the golden file, or rewrites the file
// under -update.
func compareGolden(t *testing.T, golden, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./... -update)", err)
	}
	if string(want) != got {
		t.Errorf("output differs from %s; run go test ./... -update and read the diff\ngot:\n%s", golden, got)
	}
}

// sharedCubes finds the real MLCommons cubes in ../shared beside the repo.
func sharedCubes(t *testing.T) string {
	dir := filepath.Join(repoRoot, "..", "shared", "cubes")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("skipping: %s is absent, so the real MLCommons cubes cannot be compiled", dir)
	}
	return dir
}

func TestSharedCubesCompile(t *testing.T) {
	root := sharedCubes(t)
	var files []string
	err := filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err == nil && info.Name() == "mlcube.yaml" {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 12 {
		t.Fatalf("found %d mlcube.yaml files under %s, want at least 12", len(files), root)
	}
	for _, f := range files {
		rel, _ := filepath.Rel(root, f)
		for _, backend := range backendNames {
			t.Run(backend+"/"+rel, func(t *testing.T) {
				out, stderr, code := compileArgs(t, "mlcube-compile", "--backend", backend, "--mlcube", f)
				if code != 0 && notForBackend(stderr) {
					t.Skip("several tasks: not for a Job")
				}
				if code != 0 {
					t.Fatalf("exit %d: %s", code, stderr)
				}
				validators[backend](t, rel, out)
			})
		}
	}
	t.Run("legacy test_cube with --platform and --task", func(t *testing.T) {
		dir := filepath.Join(root, "mlcube_k8s", "test_cube")
		out, stderr, code := compileArgs(t, "mlcube-compile", "--mlcube", dir,
			"--platform", filepath.Join(dir, "platforms", "docker.yaml"),
			"--task", filepath.Join(dir, "run", "kubernetes.yaml"))
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		wf := validateWorkflow(t, "test_cube", out)
		c := wf.Spec.Templates[1].Container
		want := []string{"--test_data=/mnt/mlcube/mlcube-input/workspace/data", "--test_model=/mnt/mlcube/mlcube-output/workspace/model"}
		if strings.Join(c.Args, " ") != strings.Join(want, " ") || c.Image != "test/test:v1.0" {
			t.Fatalf("args %q image %q; want %q and test/test:v1.0", c.Args, c.Image, want)
		}
	})
}

func TestMNISTRunsDownloadBeforeTrain(t *testing.T) {
	root := sharedCubes(t)
	out, stderr, code := compileArgs(t, "mlcube-compile", "--backend", "argo", "--mlcube", filepath.Join(root, "mlcube_examples", "mnist"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	wf := validateWorkflow(t, "mnist", out)
	tasks := wf.Spec.Templates[0].DAG.Tasks
	if len(tasks) != 2 || tasks[1].Name != "train" || strings.Join(tasks[1].Dependencies, ",") != "download" {
		t.Fatalf("want train to depend on download, got %+v", tasks)
	}
}
