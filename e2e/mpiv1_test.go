//go:build e2e

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	kubeflow "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	mpivalidation "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/validation"
	"sigs.k8s.io/yaml"
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
		checkV1MPIJob(t, job)
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
	os.WriteFile(filepath.Join(dir, "platform.yaml"), []byte(strings.Replace(string(plat), "kubeflow.org/v2beta1", "kubeflow.org/v1", 1)), 0o644)
	pipeline, _ := os.ReadFile(filepath.Join(ex, "pipeline.yaml"))
	var kept []string
	for _, line := range strings.Split(string(pipeline), "\n") {
		if !strings.Contains(line, "sshAuthMountPath:") && !strings.Contains(line, "workerCommand:") {
			kept = append(kept, line)
		}
	}
	os.WriteFile(filepath.Join(dir, "pipeline.yaml"), []byte(strings.Join(kept, "\n")), 0o644)
	os.WriteFile(filepath.Join(dir, "mlops.env"), []byte("REGISTRY=docker.io\n"), 0o644)
	args := []string{"mlcube-compile", "--mlcube", ex, "--platform", filepath.Join(dir, "platform.yaml"), "--task", filepath.Join(dir, "pipeline.yaml")}
	return args, filepath.Join(ex, "pipeline.yaml")
}

// v1MPIJob compiles args for backend and returns the v1 MPIJob it creates.
func v1MPIJob(t *testing.T, args []string, backend string) map[string]any {
	t.Helper()
	out, stderr, code := compileArgs(t, append(args, "--backend", backend)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	job := embeddedJobs(t, backend, out)[0]
	if job["apiVersion"] != "kubeflow.org/v1" {
		t.Fatalf("apiVersion: got %v", job["apiVersion"])
	}
	return job
}

// checkV1MPIJob checks a kubeflow.org/v1 MPIJob against the training
// operator's types (pkg/apis/kubeflow.org/v1/mpi_types.go, v1.9.2): none
// of v2beta1's SSH and launcher fields, workers without a command (the v1
// controller runs "sleep 365d" and starts ranks with kubectl exec), and a
// launcher that keeps the token of the account the controller gives it.
func checkV1MPIJob(t *testing.T, job map[string]any) {
	t.Helper()
	spec := job["spec"].(map[string]any)
	for _, v2only := range []string{"sshAuthMountPath", "mpiImplementation", "launcherCreationPolicy", "runLauncherAsWorker"} {
		if _, ok := spec[v2only]; ok {
			t.Errorf("a v1 MPIJob has no %s", v2only)
		}
	}
	for _, field := range []string{"slotsPerWorker", "runPolicy", "mpiReplicaSpecs", "mainContainer"} {
		if _, ok := spec[field]; !ok {
			t.Errorf("the v1 MPIJob lacks %s", field)
		}
	}
	replicas := spec["mpiReplicaSpecs"].(map[string]any)
	pod := func(kind string) map[string]any {
		return replicas[kind].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
	}
	if c := pod("Worker")["containers"].([]any)[0].(map[string]any); c["command"] != nil {
		t.Errorf("v1 worker command %v: the controller's own sleep keeps a worker up", c["command"])
	}
	if l := pod("Launcher"); l["automountServiceAccountToken"] != nil || l["serviceAccountName"] != nil {
		t.Errorf("the v1 launcher needs the token of the account the controller makes for it: %v", l)
	}
	v2 := map[string]any{}
	raw, _ := json.Marshal(job)
	json.Unmarshal(raw, &v2)
	v2["apiVersion"] = "kubeflow.org/v2beta1"
	v2spec := v2["spec"].(map[string]any)
	v2spec["sshAuthMountPath"] = "/root/.ssh"
	delete(v2spec, "mainContainer")
	validateMPIJob(t, v2)
}

// validateMPIJob decodes m strictly as mpi-operator's type and runs its
// defaulting and validation, named as the API server would name it.
func validateMPIJob(t *testing.T, m map[string]any) *kubeflow.MPIJob {
	t.Helper()
	raw, _ := json.Marshal(m)
	var job kubeflow.MPIJob
	if err := yaml.UnmarshalStrict(raw, &job); err != nil {
		t.Fatalf("MPIJob does not decode as mpi-operator's type: %v", err)
	}
	job.Name = job.GenerateName + "abcde"
	kubeflow.SetDefaults_MPIJob(&job)
	if errs := mpivalidation.ValidateMPIJob(&job); len(errs) > 0 {
		t.Fatalf("MPIJob fails mpi-operator's validation: %v", errs.ToAggregate())
	}
	return &job
}
