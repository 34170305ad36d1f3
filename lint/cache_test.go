package lint

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mlcube-compile/mlcube-compile/compiler"
)

// memCache is a Cache in memory that counts its hits.
type memCache struct {
	mu      sync.Mutex
	entries map[string][]byte
	hits    int
}

func (c *memCache) Get(key string) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.entries[key]
	if ok {
		c.hits++
	}
	return v, ok
}

func (c *memCache) Put(key string, value []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries[key] = value
	return nil
}

// takeHits returns the hits since the last call.
func (c *memCache) takeHits() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	h := c.hits
	c.hits = 0
	return h
}

func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

const (
	cacheCube = "name: model\ndocker: {image: example/model:1.0}\ntasks:\n" +
		"  train: {parameters: {outputs: {model_dir: model/}}}\n  evaluate: {parameters: {inputs: {model_dir: model/}}}\n"
	cachePipeline = "name: p\ncubes:\n  model: ../model\nsteps:\n  train: {cube: model, task: train}\n" +
		"  evaluate: {cube: model, task: evaluate}\n"
)

// lintText lints dir with the cache and returns the report as text.
func lintText(t *testing.T, dir string, opts Options) string {
	t.Helper()
	r, err := Run([]string{dir}, opts)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, d := range r.Diagnostics {
		b.WriteString(d.String() + "\n")
	}
	return b.String()
}

// TestCacheReusesAndInvalidates: a second run of unchanged files takes
// every result from the cache and reports the same; a change to any file
// a compilation read, even one in another folder (a pipeline's cube), or
// a file appearing where the compilation found none, runs it again.
func TestCacheReusesAndInvalidates(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"model/mlcube.yaml": cacheCube, "run/pipeline.yaml": cachePipeline})
	c := &memCache{entries: map[string][]byte{}}
	opts := Options{Cache: c, CacheVersion: "test"}
	uncached := lintText(t, dir, Options{})
	if got := lintText(t, dir, opts); got != uncached || c.takeHits() != 0 {
		t.Fatalf("first run differs from lint without a cache:\n%s", cmp.Diff(uncached, got))
	}
	if got := lintText(t, dir, opts); got != uncached || c.takeHits() != 2 {
		t.Fatalf("second run: want both units from the cache and the same report:\n%s", cmp.Diff(uncached, got))
	}
	// The cube loses the task the pipeline runs: the cube alone is still
	// clean, the pipeline is not, though its own file did not change.
	writeTree(t, dir, map[string]string{"model/mlcube.yaml": strings.Replace(cacheCube, "evaluate", "score", 1)})
	got := lintText(t, dir, opts)
	if got != lintText(t, dir, Options{}) || !strings.Contains(got, "run/pipeline.yaml") {
		t.Fatalf("after the cube changed, want the pipeline's error, got:\n%s", got)
	}
	// A cube the pipeline names that is missing, then written.
	writeTree(t, dir, map[string]string{"model/mlcube.yaml": cacheCube,
		"run/pipeline.yaml": strings.Replace(cachePipeline, "../model", "../other", 1)})
	if got := lintText(t, dir, opts); !strings.Contains(got, "other") {
		t.Fatalf("want the missing cube reported, got:\n%s", got)
	}
	c.takeHits()
	writeTree(t, dir, map[string]string{"other/mlcube.yaml": cacheCube})
	if got, want := lintText(t, dir, opts), lintText(t, dir, Options{}); got != want {
		t.Fatalf("after the missing cube was written:\n%s", cmp.Diff(want, got))
	}
}

// TestCacheKey: the key changes with the tool, the backends and every
// compiler option, and not with the file system or schema lint sets.
func TestCacheKey(t *testing.T) {
	base := unit{opts: compiler.Options{MLCube: "a/mlcube.yaml", Platform: "a/platform.yaml"}}
	key := func(u unit, o Options) string {
		k, ok := unitKey(u, o)
		if !ok {
			t.Fatal("no key")
		}
		return k
	}
	want := key(base, Options{CacheVersion: "v1"})
	withFS := base
	withFS.opts.FS = compiler.Disk
	if got := key(withFS, Options{CacheVersion: "v1", Strict: true}); got != want {
		t.Errorf("the file system or --strict changed the key")
	}
	changed := map[string]string{
		"version":  key(base, Options{CacheVersion: "v2"}),
		"backends": key(base, Options{CacheVersion: "v1", Backends: []string{"argo"}}),
	}
	for name, o := range map[string]compiler.Options{
		"platform": {MLCube: "a/mlcube.yaml"},
		"task":     {MLCube: "a/mlcube.yaml", Platform: "a/platform.yaml", Task: "train"},
		"values":   {MLCube: "a/mlcube.yaml", Platform: "a/platform.yaml", Values: []string{"v.yaml"}},
		"set":      {MLCube: "a/mlcube.yaml", Platform: "a/platform.yaml", Set: []compiler.Setting{{Name: "x", Value: "1"}}},
		"schedule": {MLCube: "a/mlcube.yaml", Platform: "a/platform.yaml",
			Schedule: compiler.ScheduleOptions{Timezone: "UTC"}},
	} {
		changed[name] = key(unit{opts: o}, Options{CacheVersion: "v1"})
	}
	for name, k := range changed {
		if k == want {
			t.Errorf("changing the %s did not change the key", name)
		}
	}
}

// TestRecorderStates: what the recorder notes for a file read whole, one
// only stat'ed, a folder and a missing file, and that unchanged compares
// each.
func TestRecorderStates(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a.yaml": "a: 1\n", "b.yaml": "b: 1\n"})
	a, b, missing := filepath.Join(dir, "a.yaml"), filepath.Join(dir, "b.yaml"), filepath.Join(dir, "c.yaml")
	rec := newRecorder(compiler.Disk)
	f, err := rec.Open(a)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	for err == nil {
		_, err = f.Read(buf)
	}
	f.Close()
	for _, p := range []string{b, dir, missing} {
		rec.Stat(p)
	}
	inputs, whole := rec.inputs()
	states := map[string]string{}
	for _, in := range inputs {
		states[in.Path] = in.State
		if (in.Sum != "") != (in.Path == a) {
			t.Errorf("%s: sum %q", in.Path, in.Sum)
		}
	}
	if diff := cmp.Diff(map[string]string{a: stateFile, b: stateFile, dir: stateDir, missing: stateAbsent},
		states); diff != "" || !whole {
		t.Fatalf("states (-want +got):\n%s", diff)
	}
	if !unchanged(compiler.Disk, inputs) {
		t.Fatal("unchanged files reported changed")
	}
	for name, change := range map[string]func(){
		"read file's bytes":   func() { writeTree(t, dir, map[string]string{"a.yaml": "a: 2\n"}) },
		"missing file exists": func() { writeTree(t, dir, map[string]string{"c.yaml": "c: 1\n"}) },
		"stat'ed file gone":   func() { os.Remove(b) },
		// The compiler refuses a file over its size limit from its stat.
		"stat'ed file's size": func() { writeTree(t, dir, map[string]string{"b.yaml": "b: 22\n"}) },
	} {
		writeTree(t, dir, map[string]string{"a.yaml": "a: 1\n", "b.yaml": "b: 1\n"})
		os.Remove(missing)
		change()
		if unchanged(compiler.Disk, inputs) {
			t.Errorf("%s: not seen as a change", name)
		}
	}
}
