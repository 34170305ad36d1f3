package compiler

import (
	"io/fs"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/mlcube-compile/mlcube-compile/diag"
)

// countingFS counts the times each file is opened.
type countingFS struct {
	fstest.MapFS
	opened map[string]int
}

func (c countingFS) Open(name string) (fs.File, error) {
	c.opened[name]++
	return c.MapFS.Open(name)
}

// A workspace answers every question about its specs, compiles them and
// silences their warnings by their comments, reading each file once.
func TestWorkspaceReadsEachFileOnce(t *testing.T) {
	fsys := countingFS{fstest.MapFS{
		"x/mlcube.yaml": {Data: []byte(`name: cube
docker: {image: "busybox:1.36"}
tasks:
  train:
    parameters:
      outputs:
        one: {type: directory, default: /abs/one} # mlcube-compile: disable MLC201
        home: {type: directory, default: ~/out}
`)},
		"x/pipeline.yaml": {Data: []byte(`name: p
params:
  epochs: {default: "1"}
steps:
  a:
    task: train
    args: ["${params.epochs}"]
  b:
    task: train
    after: [a]
`)},
		"x/platform.yaml": {Data: []byte("namespace: ml\n")},
	}, map[string]int{}}
	w := Load(Options{Task: "x/pipeline.yaml", FS: fsys})
	if got := w.Pair().Platform; got != "x/platform.yaml" {
		t.Fatalf("Pair chose platform %q", got)
	}
	if got, want := w.Tasks(), []string{"train"}; !cmp.Equal(got, want) {
		t.Errorf("Tasks: %v, want %v", got, want)
	}
	if steps, file := w.Steps(); !file || !cmp.Equal(steps, []string{"a", "b"}) {
		t.Errorf("Steps: %v, %v", steps, file)
	}
	if got := w.Params(); !cmp.Equal(got, []string{"epochs"}) {
		t.Errorf("Params: %v", got)
	}
	p, ds := w.For(Options{MLCube: "x", Task: "x/pipeline.yaml", Platform: "x/platform.yaml", Steps: []string{"a"}}).
		Compile()
	if p == nil || ds.HasErrors() {
		t.Fatalf("Compile: %v", ds)
	}
	var codes []diag.Code
	for _, d := range w.Silence(ds) {
		codes = append(codes, d.Code)
	}
	if !cmp.Equal(codes, []diag.Code{diag.PathTilde}) {
		t.Errorf("left after silencing: %v, want the ~ path's MLC202 alone", codes)
	}
	if !w.Whole() || len(w.Silenced().Used) != 1 {
		t.Errorf("Whole %v, comments used %v", w.Whole(), w.Silenced().Used)
	}
	for name, n := range fsys.opened {
		if n > 1 {
			t.Errorf("%s opened %d times", name, n)
		}
	}
	if len(fsys.opened) != 3 {
		t.Errorf("opened %v, want the cube, the pipeline and the platform", fsys.opened)
	}
}
