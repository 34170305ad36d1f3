//go:build e2e

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
)

// medperfRootContainer writes its results to /medperf_results.yaml, a
// file in the container's root folder, as MedPerf's own test containers
// do.
const medperfRootContainer = `container_type: DockerImage
image: example/eval:1.0
tasks:
  evaluate:
    run_args:
      entrypoint: /bin/sh
      command: ["-c", "test -f /medperf_results.yaml && echo 'accuracy: 0.9' > /medperf_results.yaml"]
    output_volumes:
      output_path: {mount_path: /medperf_results.yaml, type: file}
`

// TestE2EArgoMedPerfRootOutputFile runs that container on the real node:
// the run must succeed, the container finding a file (not a folder) at
// /medperf_results.yaml, which the step's init container created on the
// claim, and the claim must hold what it wrote (issue 32, point 6).
func TestE2EArgoMedPerfRootOutputFile(t *testing.T) {
	c := e2eCluster(t)
	t.Parallel()
	// A MedPerf container is named by its folder.
	dir := filepath.Join(t.TempDir(), "eval")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "container_config.yaml"), []byte(medperfRootContainer), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := compileArgs(t, "mlcube-compile", "--backend", "argo", "--mlcube", dir, "--task", "evaluate", "--platform", realNodePlatform(t, "", realImage))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	docs := strings.Split(strings.TrimSuffix(out, "\n"), "\n---\n")
	wf := decodeWorkflow(t, docs[len(docs)-1])
	r := c.newRealRun(t, "medperf-root", docs, wf)
	claim := wf.Spec.Volumes[0].PersistentVolumeClaim.ClaimName
	done := r.c.wait(t, r.ns, r.create(t), 5*time.Minute)
	if done.Status.Phase != wfv1.WorkflowSucceeded {
		t.Fatalf("phase %s, want Succeeded\n%s", done.Status.Phase, nodeSummary(done))
	}
	got, err := os.ReadFile(filepath.Join(r.volumes[claim], "medperf_results.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(string(got)) != "accuracy: 0.9" {
		t.Fatalf("the claim's medperf_results.yaml holds %q", got)
	}
	t.Logf("%s: Succeeded; /medperf_results.yaml was a file, created on claim %s before the container ran, and holds what it wrote", done.Name, claim)
}
