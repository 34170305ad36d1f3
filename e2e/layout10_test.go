//go:build e2e

package e2e

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestE2EArgoMLCube10Cube runs MLCommons' mnist in the MLCube 1.0 layout
// (../shared/cubes-1.0, unchanged) on the real node, every run file of it:
// each container gets the task_name and then --name=path for its
// bindings, as MLCube 1.0's docker runner passes them, and train runs
// after download and reads the data/ download wrote (issue 32, point 1).
func TestE2EArgoMLCube10Cube(t *testing.T) {
	c := e2eCluster(t)
	t.Parallel()
	dir := filepath.Join(sharedCubes10(t), "mlcube_examples", "mnist")
	r, done := c.runCubeOnRealNode(t, "mnist-10", dir)
	pods := r.pods(t)
	recs := r.records(t)
	download, train := recs[pods[done.Name+".download"]], recs[pods[done.Name+".train"]]
	wantArgs := map[string]string{
		"download": "download --data_dir=/mnt/mlcube/data --log_dir=/mnt/mlcube/download_logs",
		"train": "train --data_dir=/mnt/mlcube/data --parameters_file=/mnt/mlcube/parameters/default.parameters.yaml " +
			"--log_dir=/mnt/mlcube/train_logs --model_dir=/mnt/mlcube/model",
	}
	for name, rec := range map[string]record{"download": download, "train": train} {
		if len(rec.Argv) == 0 {
			t.Fatalf("%s left no record (pods %v)", name, pods)
		}
		if got := strings.Join(rec.Argv[1:], " "); got != wantArgs[name] {
			t.Errorf("%s got %q, want %q", name, got, wantArgs[name])
		}
	}
	seen := train.Inputs["/mnt/mlcube/data"]["/mnt/mlcube/data/written-by"]["text"]
	if !strings.Contains(seen, download.Pod) {
		t.Fatalf("train read data/written-by %q, want what download's pod %s wrote", seen, download.Pod)
	}
	t.Logf("%s: Succeeded; download and train got MLCube 1.0's arguments, and train read the data/ that "+
		"download wrote", done.Name)
}
