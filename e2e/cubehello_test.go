//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// cubeImage is the real node's image of a cube the suite runs as its own
// Dockerfile lays it out (scripts/e2e/images.sh's cubes, by id), named by
// the registry tekton.sh starts on the node's address and pushes it to:
// a step of such a cube has no command, and Argo's controller reads its
// image's entrypoint from the image's registry
// (workflow/controller/entrypoint/container_registry_index.go, v3.7.18),
// as Tekton's does (pkg/pod/entrypoint_lookup.go), since it is in neither
// Argo's image index nor any registry the cluster reaches otherwise.
func cubeImage(id string) string { return "10.213.0.1:15000/mlcube-e2e/cube-" + id + ":1" }

// sharedCubesSrc finds the real cubes' whole sources, in
// ../shared/cubes-src beside the repository, from which images.sh builds
// their images.
func sharedCubesSrc(t *testing.T) string {
	dir := filepath.Join(repoRoot, "..", "shared", "cubes-src")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("skipping: %s is absent, and with it the cubes' images (scripts/e2e/images.sh)", dir)
	}
	return dir
}

// helloCube is MLCommons' hello_world in one of its layouts, and the
// image its own Dockerfile gives.
type helloCube struct{ layout, dir, image string }

// helloCubes are hello_world in the MLCube 2.0 layout (mlcube.yaml, its
// Dockerfile at its root) and the 1.0 one (tasks/, run/, build/), each
// unchanged, in its own image.
func helloCubes(t *testing.T) []helloCube {
	return []helloCube{
		{"20", filepath.Join(sharedCubesSrc(t), "mlcube_examples", "hello_world"), cubeImage("hello-world")},
		{"10", filepath.Join(sharedCubes10(t), "mlcube_examples", "hello_world"), cubeImage("hello-world-10")},
	}
}

// helloTasks are hello_world's tasks in their order, and the words each
// writes to the chat file for its --name (hello_world.py).
var helloTasks = []struct{ name, says string }{
	{"hello", "Hi, %s! Nice to meet you."},
	{"bye", "Bye, %s! It was great talking to you."},
}

// compileHello compiles the cube for backend with the real node's
// platform for its image, and args.
func compileHello(t *testing.T, backend string, cube helloCube, extra map[string]any, args ...string) []string {
	t.Helper()
	return compileWith(t, cube.dir, backend, cube.image, extra, args...)
}

// seedNames copies the cube's workspace's names/alice.txt, the input of
// every task, into the claim's folder, and returns the name it holds.
func seedNames(t *testing.T, cube helloCube, claim string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(cube.dir, "workspace", "names", "alice.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(claim, "names"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(claim, "names", "alice.txt"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(data))
}

// chatLine is a line hello_world.py writes: the time (str of a Python
// datetime, without microseconds when they are 0) in brackets, two
// blanks, the words.
var chatLine = regexp.MustCompile(`^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d{6})?\]  (.*)$`)

// checkChat checks that the claim's chats/chat_with_alice.txt holds
// exactly a line of each task's words for name, in the tasks' order, and
// returns its text.
func checkChat(t *testing.T, claim, name string, tasks ...string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(claim, "chats", "chat_with_alice.txt"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	var want []string
	for _, task := range tasks {
		for _, h := range helloTasks {
			if h.name == task {
				want = append(want, strings.Replace(h.says, "%s", name, 1))
			}
		}
	}
	ok := len(lines) == len(want) && strings.HasSuffix(string(data), "\n")
	for i := 0; ok && i < len(lines); i++ {
		m := chatLine.FindStringSubmatch(lines[i])
		ok = m != nil && m[2] == want[i]
	}
	if !ok {
		t.Fatalf("chats/chat_with_alice.txt holds %q, want a [time] line of each of %q", data, want)
	}
	return string(data)
}

// TestE2EArgoMLCubeHelloWorld runs MLCommons' hello_world, unchanged, in
// the MLCube 2.0 and 1.0 layouts, every task (hello, then bye), on Argo
// on the real node, each in the image its own Dockerfile lays out
// (images.sh; python3 /workspace/hello_world.py its entrypoint, Debian's
// python3-typer): the chat file on the claim holds what the program
// wrote for the name in the workspace's names/alice.txt (issue 50,
// point 2).
func TestE2EArgoMLCubeHelloWorld(t *testing.T) {
	c := e2eCluster(t)
	t.Parallel()
	for _, cube := range helloCubes(t) {
		t.Run(cube.layout, func(t *testing.T) {
			t.Parallel()
			docs := compileHello(t, "argo", cube, nil)
			r := c.newRealRun(t, "hello-world-"+cube.layout, docs, decodeWorkflow(t, docs[len(docs)-1]))
			claim := r.volumes["hello-world"]
			name := seedNames(t, cube, claim)
			done := r.succeed(t, 5*time.Minute)
			chat := checkChat(t, claim, name, "hello", "bye")
			t.Logf("cube hello_world (MLCube %s layout, image %s) on Argo %s: %s Succeeded; chats/chat_with_alice.txt %q",
				cube.layout, cube.image, envOr("E2E_ARGO_VERSION", "v3.7"), done.Name, chat)
		})
	}
}
