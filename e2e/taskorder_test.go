//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
)

// inPlaceRealCube changes its data in place, as real cubes do: seed
// writes data/state, preprocess (slowly) rewrites it in its input data/,
// and train copies what it then reads into model/seen. Each task's
// entrypoint is a shell script given the task's --name=path arguments.
const inPlaceRealCube = `name: in-place
docker: {image: example.com/in-place:1}
tasks:
  seed:
    entrypoint: sh -c 'd=` + "`" + `echo "$1" | cut -d= -f2` + "`" + `; mkdir -p "$d"; echo raw > "$d/state"' seed
    parameters: {outputs: {data: data/}}
  preprocess:
    entrypoint: sh -c 'd=` + "`" + `echo "$1" | cut -d= -f2` + "`" +
	`; sleep 5; echo preprocessed > "$d/state"' preprocess
    parameters: {inputs: {data: data/}}
  train:
    entrypoint: sh -c 'd=` + "`" + `echo "$1" | cut -d= -f2` + "`" + `; m=` + "`" + `echo "$2" | cut -d= -f2` + "`" +
	`; mkdir -p "$m"; cp "$d/state" "$m/seen"' train
    parameters: {inputs: {data: data/}, outputs: {model: model/}}
`

// TestE2EArgoCubeTasksKeepTheFileOrder runs every task of a cube that
// changes its input in place, compiled with no --task, on the real node:
// train must read what preprocess wrote into data/, because the tasks keep
// the file's order where their paths touch (issue 32, point 5). Path flow
// ran preprocess and train at once, since both only read data/, and train
// read "raw".
func TestE2EArgoCubeTasksKeepTheFileOrder(t *testing.T) {
	c := e2eCluster(t)
	t.Parallel()
	r, done := c.runOnRealNode(t, "in-place", "in-place", "mlcube.yaml", inPlaceRealCube)
	seen, err := os.ReadFile(filepath.Join(r.volumes["in-place"], "model", "seen"))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(seen)); got != "preprocessed" {
		t.Fatalf("train read %q from data/state, want what preprocess wrote there in place (preprocessed)", got)
	}
	t.Logf("%s: Succeeded; train read %q, which preprocess wrote into its input data/", done.Name, "preprocessed")
}

// runOnRealNode writes one spec file into a folder of the given name (a
// MedPerf container is named by its folder) and runs it as
// runCubeOnRealNode does.
func (c *cluster) runOnRealNode(t *testing.T, name, folder, file, content string,
	args ...string) (*realRun, *wfv1.Workflow) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), folder)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, file), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return c.runCubeOnRealNode(t, name, dir, args...)
}

// runCubeOnRealNode compiles the cube in dir for Argo with the real
// node's platform and args, runs it as NAME on the real node, and returns
// the run once it Succeeded.
func (c *cluster) runCubeOnRealNode(t *testing.T, name, dir string, args ...string) (*realRun, *wfv1.Workflow) {
	t.Helper()
	compile := append([]string{"mlcube-compile", "--backend", "argo", "--mlcube", dir, "--platform",
		realNodePlatform(t, "", realImage)}, args...)
	out, stderr, code := compileArgs(t, compile...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	docs := strings.Split(strings.TrimSuffix(out, "\n"), "\n---\n")
	r := c.newRealRun(t, name, docs, decodeWorkflow(t, docs[len(docs)-1]))
	done := r.c.wait(t, r.ns, r.create(t), 5*time.Minute)
	if done.Status.Phase != wfv1.WorkflowSucceeded {
		t.Fatalf("phase %s, want Succeeded\n%s", done.Status.Phase, nodeSummary(done))
	}
	return r, done
}
