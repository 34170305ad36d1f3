//go:build e2e

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlcube-compile/mlcube-compile/internal/enginetest"
	"github.com/mlcube-compile/mlcube-compile/internal/manifestcheck"
)

// TestE2EMPIJobV1DryRun creates the kubeflow.org/v1 MPIJob that each
// engine's step would create with --dry-run=server, against the training
// operator's own v1 CRD schema (scripts/e2e/up.sh serves it beside
// mpi-operator's v2beta1), so a v2-only field or a missing one fails.
func TestE2EMPIJobV1DryRun(t *testing.T) {
	c := e2eCluster(t)
	args, _ := v1MPIArgs(t)
	for _, backend := range []string{"argo", "tekton"} {
		job := v1MPIJob(t, args, backend)
		enginetest.CheckV1MPIJob(t, job)
		manifest, err := json.Marshal(job)
		if err != nil {
			t.Fatal(err)
		}
		c.dryRun(t, asSubmitted(string(manifest)))
		t.Logf("%s: kubeflow.org/v1 MPIJob accepted by the training operator's CRD", backend)
	}
}

// The v1 MPIJob and its checks: copies of cmd/mlcube-compile's
// (distributed_test.go).

// v1MPIArgs writes seed 002 for kubeflow.org/v1: the platform with
// mpi.apiVersion v1, and the pipeline without v2's SSH settings. It
// returns the command line, and seed 002's own pipeline file.
func v1MPIArgs(t *testing.T) ([]string, string) {
	t.Helper()
	dir := t.TempDir()
	ex := filepath.Join(repoRoot, "examples", "resnet50-multinode")
	plat, _ := os.ReadFile(filepath.Join(ex, "platform.yaml"))
	os.WriteFile(filepath.Join(dir, "platform.yaml"),
		[]byte(strings.Replace(string(plat), "kubeflow.org/v2beta1", "kubeflow.org/v1", 1)), 0o644)
	pipeline, _ := os.ReadFile(filepath.Join(ex, "pipeline.yaml"))
	var kept []string
	for _, line := range strings.Split(string(pipeline), "\n") {
		if !strings.Contains(line, "sshAuthMountPath:") && !strings.Contains(line, "workerCommand:") {
			kept = append(kept, line)
		}
	}
	os.WriteFile(filepath.Join(dir, "pipeline.yaml"), []byte(strings.Join(kept, "\n")), 0o644)
	os.WriteFile(filepath.Join(dir, "mlops.env"), []byte("REGISTRY=docker.io\n"), 0o644)
	args := []string{"mlcube-compile", "--mlcube", ex, "--platform", filepath.Join(dir, "platform.yaml"), "--task",
		filepath.Join(dir, "pipeline.yaml")}
	return args, filepath.Join(ex, "pipeline.yaml")
}

// v1MPIJob compiles args for backend and returns the v1 MPIJob it creates.
func v1MPIJob(t *testing.T, args []string, backend string) map[string]any {
	t.Helper()
	out, stderr, code := compileArgs(t, append(args, "--backend", backend)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	job := manifestcheck.EmbeddedJobs(t, backend, out)[0]
	if job["apiVersion"] != "kubeflow.org/v1" {
		t.Fatalf("apiVersion: got %v", job["apiVersion"])
	}
	return job
}
