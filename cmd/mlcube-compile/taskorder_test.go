package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mlcube-compile/mlcube-compile/internal/enginetest"
)

// inPlaceCube is a cube as real cubes are written: preprocess changes its
// input data/ in place (MLCube mounts inputs writable), train reads it,
// report reads only notes/, and export writes the whole workspace.
const inPlaceCube = `name: in-place
docker: {image: example.com/in-place:1}
tasks:
  preprocess:
    parameters:
      inputs: {data_path: data/}
  train:
    parameters:
      inputs: {data_path: data/}
      outputs: {model_path: model/}
  report:
    parameters:
      inputs: {notes: notes/}
  export:
    parameters:
      outputs: {out: ./}
`

// Without --task, a cube's tasks keep the file's order wherever their
// paths touch, reads included, and only tasks with disjoint paths run at
// once (issue 32, point 5). Path flow ran preprocess and train at once
// (both only read data/) and ran export, which writes everything, before
// the tasks above it.
func TestEveryTaskKeepsTheFileOrderWherePathsTouch(t *testing.T) {
	want := map[string][]string{
		"preprocess": {},
		"train":      {"preprocess"},
		"report":     {},
		"export":     {"report", "train"},
	}
	dir := enginetest.WriteFiles(t, map[string]string{"mlcube.yaml": inPlaceCube})
	for _, backend := range []string{"argo", "tekton"} {
		t.Run(backend, func(t *testing.T) {
			out, _ := compileDir(t, backend, dir)
			if diff := cmp.Diff(want, dagEdges(t, backend, out)); diff != "" {
				t.Fatalf("edges (-want +got):\n%s", diff)
			}
		})
	}
}

// A --task list runs as listed, as mlcube run --task does; a task listed
// before the task that writes what it reads gets a warning naming both
// and the list that runs the writer first. A writer of the whole
// workspace (export's ./) says nothing of what it writes: no warning.
func TestTaskListWarnsWhenAReaderRunsBeforeItsWriter(t *testing.T) {
	cube := inPlaceCube + `  download:
    parameters:
      outputs: {data_path: data/raw/}
`
	dir := enginetest.WriteFiles(t, map[string]string{"mlcube.yaml": cube})
	_, stderr := compileDir(t, "argo", dir, "--task", "report,train,download")
	for _, want := range []string{
		"task train reads data, which task download",
		"list download earlier if train needs its output (--task report,download,train)",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	_, stderr = compileDir(t, "argo", dir, "--task", "download,preprocess,train,report,export")
	if strings.Contains(stderr, "warning") {
		t.Errorf("a list that runs each writer first warned:\n%s", stderr)
	}
}
