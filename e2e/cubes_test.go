//go:build e2e

package e2e

import (
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// nodeCubeImage is the real node's image mlcube-e2e/NAME:1 of a real
// cube, as cubeImage names it: by the node's registry, to which
// tekton.sh pushes the cubes' images that images.sh builds. The test
// skips when the node's containerd does not hold it. go-containerregistry,
// with which both engines read the entrypoint of a step's image,
// reaches a registry at a private address over plain HTTP
// (pkg/name/registry.go, Registry.Scheme, v0.20.5 and v0.21.6).
func nodeCubeImage(t *testing.T, name string) string {
	t.Helper()
	image := cubeImage(strings.TrimPrefix(name, "cube-"))
	if out := nodeCtr(t, "images", "ls", "-q", "name=="+image); strings.TrimSpace(out) != image {
		t.Skipf("skipping: the real node has no image %s (scripts/e2e/images.sh builds the cubes' images from "+
			"../shared/cubes-src, tekton.sh pushes them there)", image)
	}
	return image
}

// nodeCtr runs ctr against the real node's containerd, and returns its
// output.
func nodeCtr(t *testing.T, args ...string) string {
	t.Helper()
	sock, err := filepath.Abs(filepath.Join(repoRoot, ".e2e", "run", "node", "containerd", "containerd.sock"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("ctr", append([]string{"--address", sock, "-n", "k8s.io"}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("ctr %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// cubePlatform writes a platform file in a temporary folder: the cubes'
// images never pulled (the node holds them), kubectl steps (those that
// create a MedPerf output file) in kubectl, unless "" (an image of the
// suite that has sh and kubectl), extra laid over it; an object store's
// steps that move data in the suite's rclone image.
func cubePlatform(t *testing.T, kubectl string, extra map[string]any) string {
	t.Helper()
	plat := map[string]any{"imagePullPolicy": "Never"}
	if kubectl != "" {
		plat["kubectlImage"] = kubectl
	}
	maps.Copy(plat, extra)
	if store, ok := plat["objectStore"].(map[string]any); ok {
		store = maps.Clone(store)
		store["toolImage"] = e2eObjectStore(t).Image
		plat["objectStore"] = store
	}
	data, err := yaml.Marshal(plat)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "platform.yaml")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// compileCubes compiles a pipeline of real cubes for backend with the
// platform file and args, then gives each cube the node's image of it:
// images maps the image a cube's spec names to the node's. The platform's
// image would be every step's; a pipeline's cubes each keep their own, so
// the test renames them, and nothing else of the output changes.
func compileCubes(t *testing.T, backend, pipeline, platform string, images map[string]string, args ...string) []string {
	t.Helper()
	all := append([]string{"mlcube-compile", "--backend", backend, "--task", pipeline, "--platform", platform}, args...)
	out, stderr, code := compileArgs(t, all...)
	if code != 0 {
		t.Fatalf("compile %s for %s: exit %d: %s", pipeline, backend, code, stderr)
	}
	for from, to := range images {
		if !strings.Contains(out, "image: "+from+"\n") {
			continue
		}
		out = strings.ReplaceAll(out, "image: "+from+"\n", "image: "+to+"\n")
	}
	for _, image := range imagesOf(t, []string{out}) {
		if strings.Contains(image, "/mlcube-e2e/") || strings.HasPrefix(image, "mlcube-e2e/") {
			continue
		}
		t.Fatalf("step image %s is not one of the node's (the cubes' images: %v)", image, images)
	}
	return strings.Split(strings.TrimSuffix(out, "\n"), "\n---\n")
}

// compileRefused compiles a pipeline for backend and checks that the
// compiler refuses it, before anything runs: exit 1, nothing on stdout,
// and the diagnostic code on stderr. It returns stderr.
func compileRefused(t *testing.T, backend, pipeline, platform, code string) string {
	t.Helper()
	out, stderr, exit := compileArgs(t, "mlcube-compile", "--backend", backend, "--task", pipeline, "--platform", platform)
	if exit != 1 || out != "" || !strings.Contains(stderr, "["+code+"]") {
		t.Fatalf("compile %s for %s: exit %d, %d bytes on stdout, want exit 1, nothing on stdout and %s:\n%s", pipeline,
			backend, exit, len(out), code, stderr)
	}
	return strings.TrimSpace(stderr)
}

// writeFiles writes files (by path under dir) with their content.
func writeFiles(t *testing.T, dir string, files map[string][]byte) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// readShared reads a file of ../shared/cubes-src.
func readShared(t *testing.T, rel string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(sharedCubesSrc(t), rel))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// readClaim reads a file of a claim's folder.
func readClaim(t *testing.T, dir, rel string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, rel))
	if err != nil {
		t.Fatalf("the claim: %v", err)
	}
	return data
}
