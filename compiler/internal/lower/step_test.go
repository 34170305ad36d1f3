package lower

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/spec"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// A duration is positive and in whole seconds.
func TestDuration(t *testing.T) {
	at := diag.At(diag.Pos{File: "pipeline.yaml", Line: 1, Col: 1}).Field("timeout")
	for _, c := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"30s", 30 * time.Second, true}, {"4h", 4 * time.Hour, true}, {"0s", 0, false}, {"-5m", 0, false},
		{"soon", 0, false}, {"1500ms", 1500 * time.Millisecond, false},
	} {
		got, diags := duration(c.in, at)
		if got != c.want || (diags == nil) != c.ok {
			t.Errorf("duration(%q) = %v, %v; want %v, ok %v", c.in, got, diags, c.want, c.ok)
		}
	}
}

// The image is the platform's, the cube's k8s runner's, then its docker
// image; with none the cube is refused at docker.image.
func TestImage(t *testing.T) {
	c := &spec.Cube{File: "mlcube.yaml", Image: "docker/own"}
	c.K8s.Image = "k8s/own"
	for _, w := range []struct{ platform, want string }{{"platform/own", "platform/own"}, {"", "k8s/own"}} {
		if got, diags := image(w.platform, c); got != w.want || diags != nil {
			t.Errorf("image(%q) = %q, %v; want %q", w.platform, got, diags, w.want)
		}
	}
	c.K8s.Image = ""
	if got, _ := image("", c); got != "docker/own" {
		t.Errorf("image = %q, want the cube's docker image", got)
	}
	if got, diags := image("", &spec.Cube{File: "mlcube.yaml"}); got != "" || len(diags) != 1 ||
		diags[0].Code != diag.NoImage || diags[0].Field != "docker.image" {
		t.Errorf("no image: %q, %v", got, diags)
	}
}

// The kind of job a step becomes decides whether its references take
// their compile-time values.
func TestJobOf(t *testing.T) {
	for _, c := range []struct {
		st   *spec.Step
		want string
	}{
		{&spec.Step{}, ""}, {&spec.Step{MPI: &spec.MPI{}}, "an MPIJob"}, {&spec.Step{Torch: &spec.Torch{}}, "a TrainJob"},
		{&spec.Step{Dask: &spec.Dask{}}, "a JobSet"},
	} {
		if got := jobOf(c.st, &spec.Platform{}); got != c.want {
			t.Errorf("jobOf(%+v) = %q, want %q", c.st, got, c.want)
		}
	}
	operator := &spec.Platform{}
	operator.Dask.Kind = "DaskJob"
	if got := jobOf(&spec.Step{Dask: &spec.Dask{}}, operator); got != "a DaskJob" {
		t.Errorf("a Dask step on the operator: %q", got)
	}
}

// after: names steps by index, leaving out a name that is no step and a
// step that names itself; a MedPerf container's inputs are not writable.
func TestAfterEdges(t *testing.T) {
	steps := []*spec.Step{{Name: "a"}, {Name: "b", After: []string{"a", "b", "nope"}},
		{Name: "c", After: []string{"b", "a"}}}
	got := afterEdges(steps)
	if len(got) != 3 || got[0] != nil || !slices.Equal(got[1], []int{0}) || !slices.Equal(got[2], []int{1, 0}) {
		t.Errorf("afterEdges = %v", got)
	}
	steps[0].Cube = &spec.Cube{}
	if !inputsWritable(steps) {
		t.Error("an MLCube's inputs are not writable")
	}
	steps[1].Cube = &spec.Cube{Container: true}
	if inputsWritable(steps) {
		t.Error("a MedPerf container's inputs are writable")
	}
}

// The platform's imageDigests finds an image as written or as a registry
// names it, and pins no image that names a digest of its own.
func TestPinned(t *testing.T) {
	d := "sha256:" + strings.Repeat("1", 64)
	plat := &spec.Platform{ImageDigests: map[string]string{"docker.io/library/python:3.12": d,
		"registry.example.com:5000/team/cube": d, "localhost/own:2": d}}
	for image, want := range map[string]string{
		"python:3.12":                                "python:3.12@" + d,
		"index.docker.io/library/python:3.12":        "index.docker.io/library/python:3.12@" + d,
		"docker.io/python:3.12":                      "docker.io/python:3.12@" + d,
		"python:3.13":                                "python:3.13",
		"python":                                     "python",
		"registry.example.com:5000/team/cube":        "registry.example.com:5000/team/cube@" + d,
		"registry.example.com:5000/team/cube:latest": "registry.example.com:5000/team/cube:latest@" + d,
		"localhost/own:2":                            "localhost/own:2@" + d,
		"own:2":                                      "own:2",
		"python:3.12@sha256:" + strings.Repeat("2", 64): "python:3.12@sha256:" + strings.Repeat("2", 64),
	} {
		got, locked := pinned(plat, image)
		if got != want || locked != (got != image) {
			t.Errorf("pinned(%q) = %q, %v; want %q", image, got, locked, want)
		}
	}
}
