package enginetest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	trainer "github.com/kubeflow/trainer/v2/pkg/apis/trainer/v1alpha1"
	"sigs.k8s.io/yaml"
)

// TrainJob decodes m strictly as Kubeflow Trainer's type and checks it
// against the TrainJob CRD's schema of the Trainer module the project
// requires (manifests/base/crds), which the API server applies before
// Trainer's webhook sees the job.
func TrainJob(t testing.TB, m map[string]any) *trainer.TrainJob {
	t.Helper()
	raw, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var job trainer.TrainJob
	if err := yaml.UnmarshalStrict(raw, &job); err != nil {
		t.Fatalf("TrainJob does not decode as Trainer's type: %v", err)
	}
	obj := map[string]any{}
	for k, v := range m {
		if k != "apiVersion" && k != "kind" && k != "metadata" {
			obj[k] = v
		}
	}
	for _, e := range CheckSchema(trainJobSchema(t), obj, "TrainJob") {
		t.Error(e)
	}
	return &job
}

// OneTrainJob is the one TrainJob that run creates, checked.
func OneTrainJob(t testing.TB, run any) *trainer.TrainJob {
	t.Helper()
	jobs := Jobs(t, run)
	if len(jobs) != 1 || jobs[0]["kind"] != trainer.TrainJobKind {
		t.Fatalf("want one TrainJob, got %d jobs", len(jobs))
	}
	return TrainJob(t, jobs[0])
}

// trainJobSchema is the openAPIV3Schema of Trainer's TrainJob CRD.
func trainJobSchema(t testing.TB) map[string]any {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/kubeflow/trainer/v2").Output()
	if err != nil {
		t.Fatalf("finding the Trainer module: %v", err)
	}
	raw, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "manifests", "base", "crds",
		"trainer.kubeflow.org_trainjobs.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return crdSchema(t, raw)
}
