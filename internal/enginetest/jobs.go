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
		return TemplateJobs(t, run.Spec.Templates)
	case *wfv1.WorkflowTemplate:
		return TemplateJobs(t, run.Spec.Templates)
	case *wfv1.CronWorkflow:
		return TemplateJobs(t, run.Spec.WorkflowSpec.Templates)
	case *tektonv1.PipelineRun:
		return TaskJobs(t, run.Spec.PipelineSpec.Tasks)
	case *tektonv1.Pipeline:
		return TaskJobs(t, run.Spec.Tasks)
	}
	return nil
}

// TemplateJobs are the manifests of Argo resource templates that create,
// and the MANIFEST env of containers that run the wait script.
func TemplateJobs(t testing.TB, templates []wfv1.Template) []map[string]any {
	t.Helper()
	var jobs []map[string]any
	for _, tmpl := range templates {
		if tmpl.Container != nil {
			jobs = append(jobs, manifestEnv(t, tmpl.Name, tmpl.Container.Env)...)
		}
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

// TaskJobs are the MANIFEST env of Tekton tasks' kubectl steps.
func TaskJobs(t testing.TB, tasks []tektonv1.PipelineTask) []map[string]any {
	t.Helper()
	var jobs []map[string]any
	for _, task := range tasks {
		for _, step := range task.TaskSpec.Steps {
			jobs = append(jobs, manifestEnv(t, task.Name, step.Env)...)
		}
	}
	return jobs
}

// manifestEnv decodes the job in the MANIFEST var of env, of the
// container of the template or task named name.
func manifestEnv(t testing.TB, name string, env []corev1.EnvVar) []map[string]any {
	t.Helper()
	var jobs []map[string]any
	for _, e := range env {
		if e.Name != "MANIFEST" {
			continue
		}
		var m map[string]any
		// The kubelet turns $$ back into $.
		if err := json.Unmarshal([]byte(strings.ReplaceAll(e.Value, "$$", "$")), &m); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		jobs = append(jobs, m)
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

// CheckV1MPIJob checks a kubeflow.org/v1 MPIJob against the training
// operator's types (pkg/apis/kubeflow.org/v1/mpi_types.go, v1.9.2): none
// of v2beta1's SSH and launcher fields, workers without a command (the v1
// controller runs "sleep 365d" and starts ranks with kubectl exec), and a
// launcher that keeps the token of the account the controller gives it.
func CheckV1MPIJob(t testing.TB, job map[string]any) {
	t.Helper()
	spec := job["spec"].(map[string]any)
	for _, v2only := range []string{"sshAuthMountPath", "mpiImplementation", "launcherCreationPolicy",
		"runLauncherAsWorker"} {
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
	v2 := Tree(t, job)
	v2["apiVersion"] = "kubeflow.org/v2beta1"
	v2spec := v2["spec"].(map[string]any)
	v2spec["sshAuthMountPath"] = "/root/.ssh"
	delete(v2spec, "mainContainer")
	MPIJob(t, v2)
}
