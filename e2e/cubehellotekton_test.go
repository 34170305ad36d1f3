//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// mountsWorkspace lists the images whose /workspace the PipelineRun's
// tasks mount over Tekton's emptyDir (backends/tekton/workspace.go).
func mountsWorkspace(t *testing.T, doc string) []string {
	t.Helper()
	var refs []string
	for _, task := range decodePipelineRun(t, doc).Spec.PipelineSpec.Tasks {
		for _, v := range task.TaskSpec.Volumes {
			if v.Name == "image-workspace" && v.Image != nil {
				refs = append(refs, task.Name+":"+v.Image.Reference)
			}
		}
	}
	return refs
}

// TestE2ETektonMLCubeHelloWorld runs MLCommons' hello_world, unchanged,
// in the MLCube 2.0 and 1.0 layouts, hello then bye, on Tekton on the
// real node, each in its own image. Its program is the image's
// entrypoint, python3 /workspace/hello_world.py, in the /workspace where
// Tekton mounts an emptyDir in every step. The compiler mounts the
// image's own /workspace over it only for images it knows keep their
// program there (programImages, backends/tekton/workspace.go): each
// cube's own image, mlcommons/hello_world (2.0) and
// mlperf/mlbox_hello_world (1.0), and not the node's name for either. So
// compiled for the node's image it neither mounts nor warns, and the run fails
// with python's "can't open file"; with tekton: {imageWorkspace: always}
// on the platform every step mounts its image's /workspace, and the
// chat file holds what the program wrote for the name.
func TestE2ETektonMLCubeHelloWorld(t *testing.T) {
	c := e2eCluster(t)
	t.Parallel()
	for _, cube := range helloCubes(t) {
		t.Run(cube.layout, func(t *testing.T) {
			t.Parallel()
			args := append(exampleArgs(cube.dir), "--backend", "tekton")
			out, stderr, code := compileArgs(t, append([]string{"mlcube-compile"}, args...)...)
			if code != 0 {
				t.Fatalf("compile with the cube's own image: exit %d: %s", code, stderr)
			}
			docs := strings.Split(strings.TrimSuffix(out, "\n"), "\n---\n")
			mounts := mountsWorkspace(t, docs[len(docs)-1])
			if len(mounts) != 2 {
				t.Errorf("compiled with its own image, the tasks mount the /workspace of %q; want both tasks", mounts)
			}
			hidden := c.helloOnTekton(t, cube, "hidden", nil)
			always := c.helloOnTekton(t, cube, "always", map[string]any{"tekton": map[string]any{"imageWorkspace": "always"}})
			t.Logf("cube hello_world (MLCube %s layout, image %s) on Tekton: compiled with its own image, the tasks mount "+
				"its /workspace (%s); with the node's image: %s; with imageWorkspace: always: %s", cube.layout, cube.image,
				strings.Join(mounts, ", "), hidden, always)
		})
	}
}

// helloOnTekton runs the cube compiled for Tekton with the real node's
// image and extra on the platform: with none, the tasks must not mount
// the image's /workspace and the run must fail because python3 found no
// /workspace/hello_world.py; with imageWorkspace: always it must
// succeed and the chat must hold both tasks' lines. It says what it saw.
func (c *cluster) helloOnTekton(t *testing.T, cube helloCube, how string, extra map[string]any) string {
	t.Helper()
	docs := compileHello(t, "tekton", cube, extra)
	mounts := mountsWorkspace(t, docs[len(docs)-1])
	if (len(mounts) == 2) != (extra != nil) {
		t.Fatalf("%s: the tasks mount the /workspace of %q", how, mounts)
	}
	r := c.newTektonRun(t, "hello-world-"+cube.layout+"-"+how, docs, decodePipelineRun(t, docs[len(docs)-1]))
	claim := r.volumes["hello-world"]
	name := seedNames(t, cube, claim)
	done := r.run(t, 5*time.Minute)
	cond := done.Status.GetCondition("Succeeded")
	if extra == nil {
		logs := r.c.must(t, "", "-n", r.ns, "logs", "-l", "tekton.dev/pipelineRun="+done.Name, "--all-containers", "--prefix")
		want := "python3: can't open file '/workspace/hello_world.py'"
		if cond == nil || cond.Status != corev1.ConditionFalse || !strings.Contains(logs, want) {
			t.Fatalf("%s: PipelineRun %s: %+v, want it Failed with %q in its logs:\n%s", how, done.Name, cond, want, logs)
		}
		if _, err := os.Stat(filepath.Join(claim, "chats", "chat_with_alice.txt")); err == nil {
			t.Errorf("%s: a chat file was written", how)
		}
		return done.Name + " Failed, its log: " + want
	}
	if cond == nil || cond.Status != corev1.ConditionTrue {
		t.Fatalf("%s: PipelineRun %s: %+v\n%s", how, done.Name, cond,
			r.c.must(t, "", "-n", r.ns, "get", "taskruns,pods", "-o", "wide"))
	}
	return fmt.Sprintf("%s Succeeded; chats/chat_with_alice.txt %q", done.Name, checkChat(t, claim, name, "hello", "bye"))
}
