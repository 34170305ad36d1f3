//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	r, done := c.runOnRealNode(t, "medperf-root", "eval", "container_config.yaml", medperfRootContainer,
		"--task", "evaluate")
	claim := r.wf.Spec.Volumes[0].PersistentVolumeClaim.ClaimName
	got, err := os.ReadFile(filepath.Join(r.volumes[claim], "medperf_results.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(string(got)) != "accuracy: 0.9" {
		t.Fatalf("the claim's medperf_results.yaml holds %q", got)
	}
	t.Logf("%s: Succeeded; /medperf_results.yaml was a file, created on claim %s before the container ran, and holds "+
		"what it wrote", done.Name, claim)
}
