//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// workspaceImage keeps its program in /workspace, as MLCube's template
// does (scripts/e2e/images.sh, image/workspace.c).
const workspaceImage = "mlcube-e2e/workspace:1"

// workspaceCube runs the image's program by its path in /workspace, as a
// cube made from MLCube's template names it.
const workspaceCube = `name: workspace-program
docker:
  image: example/template:1.0
tasks:
  train:
    entrypoint: /workspace/train
    parameters:
      outputs:
        out_dir: {type: directory, default: out/}
`

// compileWorkspaceCube compiles workspaceCube for Tekton on the real
// node's platform with the extra platform lines, and returns stdout,
// stderr and the exit code.
func compileWorkspaceCube(t *testing.T, extra string) (string, string, int) {
	t.Helper()
	dir := t.TempDir()
	platform := "image: " + workspaceImage + "\nimagePullPolicy: Never\nkubectlImage: " + realImage +
		"\nstorage: {pvc: workspace-program}\n" + extra
	for name, data := range map[string]string{"mlcube.yaml": workspaceCube, "platform.yaml": platform} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return compileArgs(t, "mlcube-compile", "--backend", "tekton", "--mlcube", filepath.Join(dir, "mlcube.yaml"),
		"--platform", filepath.Join(dir, "platform.yaml"))
}

// TestE2ETektonWorkspaceProgramOnRealNode runs, with Tekton's controller
// on the real node, a step whose program lives in its image's
// /workspace, where Tekton mounts an emptyDir in every step
// (implicitVolumeMounts, pkg/pod/pod.go): the step mounts its image's
// /workspace over it as an image volume (the node's Kubernetes 1.36 and
// containerd 2.4 serve them), and the program runs and writes its output
// to the claim. On a platform that says the cluster serves no image
// volumes, the compile refuses the step before anything runs.
func TestE2ETektonWorkspaceProgramOnRealNode(t *testing.T) {
	c := e2eCluster(t)
	t.Parallel()
	out, stderr, code := compileWorkspaceCube(t, "")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	docs := strings.Split(strings.TrimSuffix(out, "\n"), "\n---\n")
	r := c.newTektonRun(t, "workspace-program", docs, decodePipelineRun(t, docs[len(docs)-1]))
	done := r.runSucceeded(t, 4*time.Minute, "taskruns,pods", "-o", "wide")
	got, err := os.ReadFile(filepath.Join(r.volumes["workspace-program"], "out", "result.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(string(got)) != "written by /workspace/train" {
		t.Fatalf("out/result.txt holds %q", got)
	}
	t.Logf("%s: Succeeded; /workspace/train ran from its image's /workspace and wrote out/result.txt", done.Name)

	out, stderr, code = compileWorkspaceCube(t, "tekton: {imageWorkspace: none}\n")
	if code != 1 || out != "" || !strings.Contains(stderr, `tekton: step train runs "/workspace/train", in /workspace, `+
		`which Tekton hides`) || !strings.Contains(stderr, "[MLC652]") {
		t.Fatalf("imageWorkspace: none: exit %d, want 1 with MLC652 and nothing on stdout\nstdout:\n%s\nstderr:\n%s",
			code, out, stderr)
	}
}

// imageWorkspaceOnRealNode points the image volumes that mount the
// suite's base image's /workspace (a step whose program the cube names
// in /workspace, such as torch-ddp's prepare) at workspaceImage's: the
// base image stands in for images that keep a /workspace
// (pytorch/pytorch's WORKDIR) and has none, and its recorder, the
// step's program, reads no script.
func imageWorkspaceOnRealNode(volumes []corev1.Volume) {
	for i := range volumes {
		if img := volumes[i].Image; img != nil && strings.HasSuffix(img.Reference, realImage) {
			img.Reference = workspaceImage
		}
	}
}
