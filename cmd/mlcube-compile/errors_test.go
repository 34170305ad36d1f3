package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mlcube-compile/mlcube-compile/internal/enginetest"
	"github.com/mlcube-compile/mlcube-compile/internal/manifestcheck"
)

// TestUnknownBackendIsAUsageError wants exit 2, the whole usage message on
// stderr, and nothing on stdout. Bad spec input is in testdata/bad, run by
// TestBadInputCorpus.
func TestUnknownBackendIsAUsageError(t *testing.T) {
	dir := enginetest.WriteFiles(t, map[string]string{"mlcube.yaml": enginetest.DemoCube})
	stdout, stderr, code := compileArgs(t, "mlcube-compile", "--mlcube", dir, "--backend", "airflow")
	if code != exitUsage {
		t.Errorf("exit %d, want %d", code, exitUsage)
	}
	if stdout != "" {
		t.Errorf("stdout is not empty:\n%s", stdout)
	}
	want := "mlcube-compile: unknown backend \"airflow\" (backends: argo, tekton, job, all)\n" +
		"Run 'mlcube-compile --help' for usage.\n"
	if stderr != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", stderr, want)
	}
}

func TestNamesThatCollideOnceCleaned(t *testing.T) {
	dir := enginetest.WriteFiles(t, map[string]string{"mlcube.yaml": enginetest.DemoCube, "p.yaml": `steps:
  fit_model: {task: train}
  fit-model: {task: train, inputs: {data_dir: other/}}
`})
	out, stderr, code := compileArgs(t, "mlcube-compile", "--mlcube", dir, "--task", filepath.Join(dir, "p.yaml"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	wf := manifestcheck.ValidateWorkflow(t, "collide", out)
	var names []string
	for _, task := range wf.Spec.Templates[0].DAG.Tasks {
		names = append(names, task.Name)
	}
	if strings.Join(names, ",") != "fit-model,fit-model-2" {
		t.Fatalf("task names %v, want fit-model and fit-model-2", names)
	}
}

func TestOutputFileIsWrittenAtomically(t *testing.T) {
	dir := enginetest.WriteFiles(t, map[string]string{"mlcube.yaml": enginetest.DemoCube, "bad/mlcube.yaml": "name: [\n"})
	out := filepath.Join(dir, "wf.yaml")
	if err := os.WriteFile(out, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := compileArgs(t, "mlcube-compile", "--mlcube", filepath.Join(dir, "bad"), "-o", out); code != 1 {
		t.Fatalf("exit %d, want 1: %s", code, stderr)
	}
	if b, _ := os.ReadFile(out); string(b) != "old\n" {
		t.Fatalf("a failed compile changed %s: %q", out, b)
	}
	stdout, stderr, code := compileArgs(t, "mlcube-compile", "--mlcube", dir, "-o", out)
	if code != 0 || stdout != "" {
		t.Fatalf("exit %d, stdout %q: %s", code, stdout, stderr)
	}
	b, _ := os.ReadFile(out)
	manifestcheck.ValidateWorkflow(t, out, string(b))
}

// -o onto what is not a regular file writes through it: a symlink's
// target is replaced and the link kept, and a FIFO (as /dev/null or
// /dev/stdout, a device) is written to, never renamed over. Renaming a
// temporary file onto /dev/null, as root, once left the machine's
// /dev/null a regular file.
func TestOutputWritesThroughLinksAndDevices(t *testing.T) {
	dir := enginetest.WriteFiles(t, map[string]string{"mlcube.yaml": enginetest.DemoCube})
	target := filepath.Join(dir, "target.yaml")
	if err := os.WriteFile(target, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.yaml")
	if err := os.Symlink("target.yaml", link); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := compileArgs(t, "mlcube-compile", "--mlcube", dir, "-o", link); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("-o %s replaced the symlink with a file (%v)", link, err)
	}
	b, _ := os.ReadFile(target)
	manifestcheck.ValidateWorkflow(t, target, string(b))

	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	got := make(chan []byte)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- nil
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		got <- b
	}()
	if _, stderr, code := compileArgs(t, "mlcube-compile", "--mlcube", dir, "-o", fifo); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("-o %s replaced the FIFO with a file (%v)", fifo, err)
	}
	manifestcheck.ValidateWorkflow(t, fifo, string(<-got))
}

func TestStepEnvBeatsEnvFileAndLegacyClaimsStayApart(t *testing.T) {
	dir := enginetest.WriteFiles(t, map[string]string{
		"mlcube.yaml": enginetest.DemoCube,
		"mlops.env":   "A=from-file\nB=file-only\n",
		"p.yaml":      "steps:\n  train: {envFile: mlops.env, env: {A: inline}}\n",
	})
	out, stderr, code := compileArgs(t, "mlcube-compile", "--mlcube", dir, "--task", filepath.Join(dir, "p.yaml"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	wf := manifestcheck.ValidateWorkflow(t, "env", out)
	env := map[string]string{}
	for _, e := range wf.Spec.Templates[1].Container.Env {
		env[e.Name] = e.Value
	}
	if env["A"] != "inline" || env["B"] != "file-only" {
		t.Fatalf("env %v: the step's env must win over its envFile", env)
	}

	legacy := enginetest.WriteFiles(t, map[string]string{
		"mlcube.yaml":           "schema_type: mlcube_root\nname: leg\ntasks: [run/k.yaml]\n",
		"platforms/docker.yaml": "schema_type: mlcube_platform\ncontainer: {image: a/b:1}\n",
		"run/k.yaml": "schema_type: mlcube_invoke\ntask_name: k\n" +
			"input_binding: {a: {path: x, k8s: {pvc: data-1}}}\noutput_binding: {b: {path: y, k8s: {pvc: data.1}}}\n",
	})
	out, stderr, code = compileArgs(t, "mlcube-compile", "--mlcube", legacy)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	wf = manifestcheck.ValidateWorkflow(t, "legacy", out)
	claims := map[string]string{}
	for _, v := range wf.Spec.Volumes {
		claims[v.Name] = v.PersistentVolumeClaim.ClaimName
	}
	if len(claims) != 2 || claims["data-1"] != "data-1" || claims["pvc-data-1"] != "data.1" {
		t.Fatalf("volumes %v: two claims must stay two volumes", claims)
	}
}
