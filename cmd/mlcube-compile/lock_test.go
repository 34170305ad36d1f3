package main

import (
	"io"
	"log"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/google/go-containerregistry/pkg/v1/random"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"sigs.k8s.io/yaml"
)

// lockedSpecs writes examples/cached-pipeline with image in place of the
// cube's, and digests as the platform's imageDigests; it returns the
// pipeline file's path.
func lockedSpecs(t *testing.T, image string, digests map[string]any) string {
	t.Helper()
	dir, ex := t.TempDir(), filepath.Join(repoRoot, "examples", "cached-pipeline")
	pipeline, err := os.ReadFile(filepath.Join(ex, "pipeline.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cube, err := filepath.Abs(filepath.Join(repoRoot, "examples", "bucket-pipeline"))
	if err != nil {
		t.Fatal(err)
	}
	pipeline = []byte(strings.Replace(string(pipeline), "bp: ../bucket-pipeline", "bp: "+cube, 1))
	plat := map[string]any{}
	data, err := os.ReadFile(filepath.Join(ex, "platform.yaml"))
	if err == nil {
		err = yaml.Unmarshal(data, &plat)
	}
	if err != nil {
		t.Fatal(err)
	}
	plat["image"] = image
	if digests != nil {
		plat["imageDigests"] = digests
	}
	if data, err = yaml.Marshal(plat); err != nil {
		t.Fatal(err)
	}
	for file, data := range map[string][]byte{"pipeline.yaml": pipeline, "platform.yaml": data} {
		if err := os.WriteFile(filepath.Join(dir, file), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "pipeline.yaml")
}

// push writes a new random image to ref and returns its digest.
func push(t *testing.T, ref string) string {
	t.Helper()
	img, err := random.Image(512, 1)
	if err != nil {
		t.Fatal(err)
	}
	r, err := name.ParseReference(ref)
	if err != nil {
		t.Fatal(err)
	}
	if err := remote.Write(r, img); err != nil {
		t.Fatal(err)
	}
	d, err := img.Digest()
	if err != nil {
		t.Fatal(err)
	}
	return d.String()
}

// lock resolves the run's image tags against a real registry (go-
// containerregistry's, on loopback): the map it prints, in the platform,
// pins each step to the digest and keys the cache by it, with no warning
// of a step cached by its tag; a tag pushed again resolves to its new
// digest, the platform's old one notwithstanding; a tag the registry does
// not hold is an error at the step, with nothing on stdout.
func TestLockResolvesTags(t *testing.T) {
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	image := host + "/cubes/bucket:1"
	first := push(t, image)

	lock := func(file string) (map[string]string, string, int) {
		t.Helper()
		out, stderr, code := compileArgs(t, "mlcube-compile", "lock", "--task", file)
		var got struct {
			ImageDigests map[string]string `json:"imageDigests"`
		}
		if err := yaml.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("lock printed no YAML: %v\n%s", err, out)
		}
		return got.ImageDigests, out + stderr, code
	}
	got, out, code := lock(lockedSpecs(t, image, nil))
	if code != 0 || len(got) != 1 || got[image] != first {
		t.Fatalf("lock: exit %d, %v; want %s: %s", code, got, first, out)
	}
	if !strings.HasPrefix(out, lockHeader) {
		t.Errorf("lock's output starts %q, want the header", out)
	}

	_, stderr, code := compileArgs(t, "mlcube-compile", "--backend", "argo", "--task", lockedSpecs(t, image, nil))
	if code != 0 || !strings.Contains(stderr, "MLC507") {
		t.Errorf("a cached step with a tag alone: exit %d, no MLC507: %s", code, stderr)
	}
	locked := lockedSpecs(t, image, map[string]any{image: first})
	wf, stderr, code := compileArgs(t, "mlcube-compile", "--backend", "argo", "--task", locked)
	if code != 0 || !strings.Contains(wf, "image: "+image+"@"+first) || strings.Contains(stderr, "MLC507") {
		t.Fatalf("the locked run: exit %d, image %s@%s in it %v: %s", code, image, first,
			strings.Contains(wf, image+"@"+first), stderr)
	}
	if strings.Contains(wf, "image: "+image+"\n") {
		t.Error("a step of the locked run names its image by the tag alone")
	}

	second := push(t, image)
	if got, out, code := lock(locked); code != 0 || got[image] != second {
		t.Errorf("lock after a push: exit %d, %v; want %s: %s", code, got, second, out)
	}

	out, stderr, code = compileArgs(t, "mlcube-compile", "lock", "--task", lockedSpecs(t, host+"/cubes/bucket:2", nil))
	if code == 0 || out != "" || strings.Count(stderr, "\n") != 1 ||
		!strings.Contains(stderr, "pipeline.yaml:13:3: steps.prepare: cannot resolve image "+host+"/cubes/bucket:2 of step "+
			"prepare to a digest: GET http://"+host+"/v2/cubes/bucket/manifests/2: MANIFEST_UNKNOWN") {
		t.Errorf("an unknown tag: exit %d, stdout %q, stderr %s", code, out, stderr)
	}
}
