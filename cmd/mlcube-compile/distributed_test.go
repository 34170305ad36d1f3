package main

import (
	"encoding/json"
	"testing"

	kubeflow "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	mpivalidation "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/validation"
	"sigs.k8s.io/yaml"
)

// embeddedJobs finds the jobs a manifest creates: the manifests of Argo
// resource templates, or the MANIFEST env of Tekton kubectl steps.
func embeddedJobs(t *testing.T, backend, out string) []map[string]any {
	t.Helper()
	var jobs []map[string]any
	switch backend {
	case "argo":
		for _, tmpl := range validateArgo(t, "output", out).Templates {
			if tmpl.Resource == nil || tmpl.Resource.Action != "create" {
				continue
			}
			var m map[string]any
			if err := yaml.UnmarshalStrict([]byte(tmpl.Resource.Manifest), &m); err != nil {
				t.Fatalf("template %s: %v", tmpl.Name, err)
			}
			jobs = append(jobs, m)
		}
	case "tekton":
		jobs = taskJobs(t, validatePipelineRun(t, "output", out).Spec.PipelineSpec.Tasks)
	case "tekton-pipeline":
		jobs = taskJobs(t, validateTektonPipeline(t, "output", out).Spec.Tasks)
	}
	return jobs
}

// validateEmbeddedJobs runs mpi-operator's validation on every MPIJob a
// manifest creates, and checks every Dask object against the operator's
// CRD schema.
func validateEmbeddedJobs(t *testing.T, backend, out string) {
	t.Helper()
	for _, m := range embeddedJobs(t, backend, out) {
		switch m["kind"] {
		case "MPIJob":
			validateMPIJob(t, m)
		case "DaskJob", "DaskAutoscaler":
			validateAgainstCRD(t, m)
		}
	}
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
