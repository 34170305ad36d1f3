//go:build e2e

package e2e

import (
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"sigs.k8s.io/yaml"
)

// The real cubes' own images (issue 50): each built from its cube's
// Dockerfile layout by scripts/e2e/images.sh, imported into the real
// node's containerd as docker.io/mlcube-e2e/<name>:1, and named by the
// tests as the node's registry (scripts/e2e/tekton.sh) serves them.
// Both engines look up the entrypoint of a step that has no command in
// its image's registry: Tekton always (pkg/pod/entrypoint_lookup.go,
// v1.15.1), Argo for an image its controller's index does not list
// (workflow/controller/entrypoint/container_registry_index.go, v3.7.18),
// which its controller reads only as it starts. go-containerregistry
// reaches a registry at a private address over plain HTTP
// (pkg/name/registry.go, Registry.Scheme, v0.20.5 and v0.21.6): so a new
// cube image needs no restart of either controller, only a push.
const nodeRegistry = "10.213.0.1:15000/"

// sharedCubesSrc is ../shared/cubes-src beside the repository: the real
// cubes' whole sources (the tests read their specs and parameters files
// from it, unchanged).
func sharedCubesSrc(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(repoRoot, "..", "shared", "cubes-src")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("skipping: %s is absent (the real cubes' sources)", dir)
	}
	return dir
}

var (
	pushedMu sync.Mutex
	pushed   = map[string]bool{}
)

// cubeImage is the real node's image mlcube-e2e/NAME:1 as the node's
// registry serves it: the test skips when the node's containerd does not
// hold the image (scripts/e2e/images.sh builds it, up.sh imports it),
// and the image goes to the registry (and under its digest to the
// node's containerd, as Tekton runs it), as tekton.sh does for the base
// image, once per test binary.
func cubeImage(t *testing.T, name string) string {
	t.Helper()
	local := "docker.io/mlcube-e2e/" + name + ":1"
	remote := nodeRegistry + "mlcube-e2e/" + name + ":1"
	pushedMu.Lock()
	defer pushedMu.Unlock()
	if pushed[name] {
		return remote
	}
	if out := nodeCtr(t, "images", "ls", "-q", "name=="+local); strings.TrimSpace(out) != local {
		t.Skipf("skipping: the real node has no image %s (scripts/e2e/images.sh builds the cubes' images from ../shared/cubes-src)", local)
	}
	nodeCtr(t, "images", "tag", "--force", local, remote)
	nodeCtr(t, "images", "push", "--plain-http", remote)
	// Tekton runs a step whose entrypoint it looked up by the digest it
	// read: the node's containerd must know the image by it.
	// ctr's columns: REF TYPE DIGEST SIZE PLATFORMS LABELS.
	lines := strings.Split(nodeCtr(t, "images", "ls", "name=="+remote), "\n")
	if f := strings.Fields(lines[min(1, len(lines)-1)]); len(f) >= 3 && strings.HasPrefix(f[2], "sha256:") {
		nodeCtr(t, "images", "tag", "--force", remote, strings.TrimSuffix(remote, ":1")+"@"+f[2])
	} else {
		t.Fatalf("no digest of %s in the node's containerd: %q", remote, lines)
	}
	pushed[name] = true
	return remote
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
		t.Fatalf("compile %s for %s: exit %d, %d bytes on stdout, want exit 1, nothing on stdout and %s:\n%s", pipeline, backend, exit, len(out), code, stderr)
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
