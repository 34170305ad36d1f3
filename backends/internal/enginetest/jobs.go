package enginetest

import (
	"encoding/json"
	"strings"
	"testing"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	kubeflow "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	mpivalidation "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/validation"
	tektonv1 "github.com/tektoncd/pipeline/pkg/apis/pipeline/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// Jobs are the jobs a run object creates, decoded: the manifests of an
// Argo run's resource templates that create, or the MANIFEST env of a
// Tekton run's kubectl steps. A Job creates none.
func Jobs(t testing.TB, run any) []map[string]any {
	t.Helper()
	switch run := run.(type) {
	case *wfv1.Workflow:
		return templateJobs(t, run.Spec.Templates)
	case *wfv1.WorkflowTemplate:
		return templateJobs(t, run.Spec.Templates)
	case *wfv1.CronWorkflow:
		return templateJobs(t, run.Spec.WorkflowSpec.Templates)
	case *tektonv1.PipelineRun:
		return taskJobs(t, run.Spec.PipelineSpec.Tasks)
	case *tektonv1.Pipeline:
		return taskJobs(t, run.Spec.Tasks)
	}
	return nil
}

// templateJobs are the manifests of Argo resource templates that create.
func templateJobs(t testing.TB, templates []wfv1.Template) []map[string]any {
	t.Helper()
	var jobs []map[string]any
	for _, tmpl := range templates {
		if tmpl.Resource == nil || tmpl.Resource.Action != "create" {
			continue
		}
		var m map[string]any
		if err := yaml.UnmarshalStrict([]byte(tmpl.Resource.Manifest), &m); err != nil {
			t.Fatalf("template %s: %v", tmpl.Name, err)
		}
		jobs = append(jobs, m)
	}
	return jobs
}

// taskJobs are the MANIFEST env of Tekton tasks' kubectl steps.
func taskJobs(t testing.TB, tasks []tektonv1.PipelineTask) []map[string]any {
	t.Helper()
	var jobs []map[string]any
	for _, task := range tasks {
		for _, step := range task.TaskSpec.Steps {
			for _, e := range step.Env {
				if e.Name != "MANIFEST" {
					continue
				}
				var m map[string]any
				// The kubelet turns $$ back into $.
				if err := json.Unmarshal([]byte(strings.ReplaceAll(e.Value, "$$", "$")), &m); err != nil {
					t.Fatalf("task %s: %v", task.Name, err)
				}
				jobs = append(jobs, m)
			}
		}
	}
	return jobs
}

// MPIJob decodes m strictly as mpi-operator's type and runs its
// defaulting and validation, named as the API server would name it.
func MPIJob(t testing.TB, m map[string]any) *kubeflow.MPIJob {
	t.Helper()
	raw, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
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

// OneMPIJob is the one MPIJob that run creates, validated.
func OneMPIJob(t testing.TB, run any) *kubeflow.MPIJob {
	t.Helper()
	jobs := Jobs(t, run)
	if len(jobs) != 1 {
		t.Fatalf("want one job, got %d", len(jobs))
	}
	return MPIJob(t, jobs[0])
}

// Launcher is the container of an MPIJob's launcher.
func Launcher(job *kubeflow.MPIJob) corev1.Container {
	return job.Spec.MPIReplicaSpecs[kubeflow.MPIReplicaTypeLauncher].Template.Spec.Containers[0]
}
