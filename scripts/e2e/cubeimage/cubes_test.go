package main

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// imagesCubes reads the cubes images.sh builds: its cubes=( ... ) list of
// ids and specs (relative to ../shared).
func imagesCubes(t *testing.T) [][2]string {
	t.Helper()
	text := readFile(t, filepath.Join("..", "images.sh"))
	_, list, ok := strings.Cut(text, "\ncubes=(\n")
	list, _, ok2 := strings.Cut(list, "\n)\n")
	if !ok || !ok2 {
		t.Fatal("images.sh has no cubes=( ... ) list")
	}
	var out [][2]string
	for _, line := range strings.Split(list, "\n") {
		f := strings.Fields(line)
		if len(f) != 2 {
			t.Fatalf("images.sh's cubes: %q is not ID SPEC", line)
		}
		out = append(out, [2]string{f[0], f[1]})
	}
	return out
}

// wantCube is what a real cube's image must be, from its Dockerfile
// (../shared/cubes-src/README.md describes each).
type wantCube struct {
	entrypoint, cmd []string
	workdir, user   string
	files           []string
}

var realCubes = map[string]wantCube{
	"hello-world": {[]string{"python3", "/workspace/hello_world.py"}, nil, "/", "",
		[]string{"requirements.txt", "workspace/hello_world.py"}},
	"hello-world-10": {[]string{"python3", "/workspace/hello_world.py"}, nil, "/", "",
		[]string{"requirements.txt", "workspace/hello_world.py"}},
	"chestxray-prep": {nil, []string{"python3"}, "/", "",
		[]string{"project/prepare.py", "project/sanity_check.py", "project/statistics.py"}},
	"chestxray-cnn": {[]string{"python3", "/project/infer.py"}, nil, "/", "",
		[]string{"project/infer.py", "project/models.py"}},
	"chestxray-metrics": {[]string{"python3", "/project/metrics.py"}, nil, "/", "", []string{"project/metrics.py"}},
	"medperf-prep-sep": {[]string{"python3"}, nil, "/project", "",
		[]string{"project/prepare_data.py", "project/check.py", "project/statistics.py", "project/requirements.txt"}},
	"medperf-model-cpu": {[]string{"python3", "/project/inference.py"}, nil, "/project", "",
		[]string{"project/inference.py"}},
	"medperf-metrics":   {[]string{"python3", "/project/metrics.py"}, nil, "/project", "", []string{"project/metrics.py"}},
	"medperf-model-bug": {[]string{"python3", "/project/inference.py"}, nil, "/", "", []string{"project/inference.py"}},
	"brats-prep": {[]string{"python3", "/mlcube_project/mlcube.py"}, nil, "/", "nonrootuser",
		[]string{"mlcube_project/mlcube.py", "mlcube_project/prepare.py"}},
	"brats-dummy-model": {[]string{"python3", "/mlcube_project/mlcube.py"}, nil, "/", "nonrootuser",
		[]string{"mlcube_project/mlcube.py", "mlcube_project/infer.py"}},
}

// TestRealCubes builds every cube images.sh lists from ../shared, on a
// root filesystem with the Debian packages of every requirement
// (debianOf): each gets the layout, entrypoint, CMD, working directory
// and user of its own Dockerfile, its files byte for byte.
func TestRealCubes(t *testing.T) {
	shared := filepath.Join("..", "..", "..", "..", "shared")
	if _, err := os.Stat(filepath.Join(shared, "cubes-src")); err != nil {
		t.Skipf("skipping: %s is absent", filepath.Join(shared, "cubes-src"))
	}
	var pkgs []string
	for _, p := range debianOf {
		pkgs = append(pkgs, p)
	}
	base := fakeBase(t, pkgs)
	cubes := imagesCubes(t)
	if len(cubes) != len(realCubes) {
		t.Errorf("images.sh lists %d cubes, the test knows %d", len(cubes), len(realCubes))
	}
	for _, cube := range cubes {
		want, ok := realCubes[cube[0]]
		if !ok {
			t.Errorf("images.sh's cube %s: the test does not know it", cube[0])
			continue
		}
		spec := filepath.Join(shared, cube[1])
		c, layer := buildCube(t, base, options{spec: spec, dropUser: "mpiuser"})
		if !reflect.DeepEqual(c.Entrypoint, want.entrypoint) || !reflect.DeepEqual(c.Cmd, want.cmd) ||
			c.WorkingDir != want.workdir || c.User != want.user {
			t.Errorf("%s: %+v, want %+v", cube[0], c, want)
		}
		dockerfile, context, _ := resolve(spec)
		for _, f := range want.files {
			got := readFile(t, filepath.Join(layer, f))
			if src := sourceOf(t, dockerfile, context, f); got != readFile(t, src) {
				t.Errorf("%s: /%s differs from %s", cube[0], f, src)
			}
		}
	}
}

// sourceOf is the context's file a file of the image came from, for the
// layouts these cubes use: /workspace/NAME and /NAME from the context's
// root, /project/... and /mlcube_project/... from the context's project/
// or its root.
func sourceOf(t *testing.T, dockerfile, context, f string) string {
	t.Helper()
	parts := strings.SplitN(f, "/", 2)
	candidates := []string{filepath.Join(context, f)}
	if len(parts) == 2 {
		candidates = append(candidates, filepath.Join(context, parts[1]), filepath.Join(context, "project", parts[1]))
	}
	i := slices.IndexFunc(candidates, func(p string) bool { _, err := os.Stat(p); return err == nil })
	if i < 0 {
		t.Fatalf("%s: no source of /%s in %s", dockerfile, f, context)
	}
	return candidates[i]
}
