package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	kubeflow "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	mpivalidation "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/validation"
	corev1 "k8s.io/api/core/v1"
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

// compileExample compiles examples/name for backend, which must succeed.
func compileExample(t *testing.T, backend, name string) string {
	t.Helper()
	dir := filepath.Join(repoRoot, "examples", name)
	out, stderr, code := compileArgs(t, append([]string{"mlcube-compile", "--backend", backend}, exampleArgs(dir)...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	return out
}

func TestResNetMultinodeRunsFourGPUWorkers(t *testing.T) {
	for _, backend := range []string{"argo", "tekton"} {
		t.Run(backend, func(t *testing.T) {
			out := compileExample(t, backend, "resnet50-multinode")
			jobs := embeddedJobs(t, backend, out)
			if len(jobs) != 1 {
				t.Fatalf("want one MPIJob, got %d objects", len(jobs))
			}
			job := validateMPIJob(t, jobs[0])
			worker := job.Spec.MPIReplicaSpecs[kubeflow.MPIReplicaTypeWorker]
			if *worker.Replicas != 4 {
				t.Errorf("workers: got %d, want 4", *worker.Replicas)
			}
			if gpu := worker.Template.Spec.Containers[0].Resources.Limits["nvidia.com/gpu"]; gpu.String() != "1" {
				t.Errorf("worker GPU limit: got %q, want 1", gpu.String())
			}
			launcher := job.Spec.MPIReplicaSpecs[kubeflow.MPIReplicaTypeLauncher].Template.Spec.Containers[0]
			if cmd := strings.Join(launcher.Command, " "); !strings.HasPrefix(cmd, "mpirun -np 4 -x DATASET_DIR -x MODEL_DIR -x OMP_NUM_THREADS -x OUTPUT_DIR -x REGISTRY python ") {
				t.Errorf("launcher command: got %q, want mpirun -np 4 and the task's entrypoint", cmd)
			}
			if _, ok := launcher.Resources.Limits["nvidia.com/gpu"]; ok {
				t.Errorf("the launcher runs no ranks and should ask for no GPU")
			}
			sc := worker.Template.Spec.SecurityContext
			if sc == nil || *sc.RunAsUser != 1000 || *sc.RunAsGroup != 1000 || *sc.FSGroup != 1000 {
				t.Errorf("worker securityContext: got %+v, want seed 002's 1000/1000/1000", sc)
			}
			if !slices.ContainsFunc(launcher.Env, func(e corev1.EnvVar) bool { return e.Name == "DATASET_DIR" }) {
				t.Errorf("launcher env lacks mlops.env's DATASET_DIR: %v", launcher.Env)
			}
			rp := job.Spec.RunPolicy
			if *rp.BackoffLimit != 0 || *rp.CleanPodPolicy != kubeflow.CleanPodPolicyRunning || rp.ActiveDeadlineSeconds == nil || *rp.ActiveDeadlineSeconds != 86400 {
				t.Errorf("runPolicy: got %+v", rp)
			}
			if backend == "argo" {
				wf := validateWorkflow(t, "output", out)
				for _, tmpl := range wf.Spec.Templates {
					if r := tmpl.Resource; r != nil && r.Action != "delete" {
						if r.SuccessCondition != "status.replicaStatuses.Launcher.succeeded > 0" || r.FailureCondition != "status.replicaStatuses.Launcher.failed > 0,status.replicaStatuses.Worker.failed > 0" || !r.SetOwnerReference || r.Action != "create" {
							t.Errorf("resource template: got %+v", r)
						}
					}
				}
			}
		})
	}
}

func TestDaskBenchmark(t *testing.T) {
	for _, backend := range []string{"argo", "tekton"} {
		t.Run(backend, func(t *testing.T) {
			out := compileExample(t, backend, "dask-benchmark")
			jobs := embeddedJobs(t, backend, out)
			kinds := map[string]int{}
			for _, m := range jobs {
				kinds[m["kind"].(string)]++
				if m["kind"] == "DaskJob" {
					validateAgainstCRD(t, m)
				}
			}
			want := map[string]int{"DaskJob": 2}
			if backend == "argo" {
				want["DaskAutoscaler"] = 1 // Tekton's script makes it once the job's name is known
			}
			if fmt.Sprint(kinds) != fmt.Sprint(want) {
				t.Errorf("objects created: got %v, want %v", kinds, want)
			}
			for _, needle := range []string{`MLCUBE_DASK_ARGS`, `deepecho.benchmark.run_benchmark`, `s3://deepecho-results/results/fixed.csv`, `s3-credentials`, `EXTRA_PIP_PACKAGES`} {
				if !strings.Contains(out, needle) {
					t.Errorf("output lacks %s", needle)
				}
			}
			if backend == "tekton" && !strings.Contains(out, "AUTOSCALER_MAX") {
				t.Errorf("the adaptive step's kubectl step makes no autoscaler")
			}
		})
	}
}

func TestMPIJobAPIVersionV1(t *testing.T) {
	args, pipeline := v1MPIArgs(t)
	own := append(append([]string{}, args[:len(args)-1]...), pipeline)
	_, stderr, code := compileArgs(t, own...)
	if code != 1 || !strings.Contains(stderr, "pipeline.yaml:16:7: steps.train.mpi.sshAuthMountPath: kubeflow.org/v1 MPIJobs (the training operator's) start ranks through kubectl exec, not SSH") {
		t.Errorf("sshAuthMountPath with v1: exit %d, %q; want an error at the field", code, stderr)
	}
	for _, backend := range []string{"argo", "tekton"} {
		checkV1MPIJob(t, v1MPIJob(t, args, backend))
	}
}

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

func TestEmitRBAC(t *testing.T) {
	ex := filepath.Join(repoRoot, "examples", "resnet50-multinode")
	args := append([]string{"mlcube-compile", "--emit-rbac"}, exampleArgs(ex)...)
	for backend, verbs := range map[string]string{"argo": "create delete get list watch", "tekton": "create delete get list watch"} {
		out, stderr, code := compileArgs(t, append(args, "--backend", backend)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", backend, code, stderr)
		}
		docs := strings.Split(out, "\n---\n")
		// Argo's executor reads the account's token from a Secret.
		if want := map[string]int{"argo": 5, "tekton": 4}[backend]; len(docs) != want {
			t.Fatalf("%s: want ServiceAccount, Role, RoleBinding, (on Argo) the token's Secret, and the run: %d documents, got %d", backend, want, len(docs))
		}
		var role struct {
			Rules []struct{ APIGroups, Resources, Verbs []string }
		}
		if err := yaml.Unmarshal([]byte(docs[1]), &role); err != nil {
			t.Fatal(err)
		}
		found := false
		for _, r := range role.Rules {
			if slices.Contains(r.Resources, "mpijobs") && strings.Join(r.Verbs, " ") == verbs && r.APIGroups[0] == "kubeflow.org" {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no rule grants %s on mpijobs: %+v", backend, verbs, role.Rules)
		}
		if !strings.Contains(docs[len(docs)-1], "serviceAccountName: mlops-runner") || !strings.Contains(docs[2], "name: mlops-runner") {
			t.Errorf("%s: the run and the binding should both use the platform's service account", backend)
		}
	}
}

// With --emit-rbac, the run's account may create jobs (which embed any
// pod spec): the users' containers must not hold its token. On Argo no
// pod mounts it and the executor's containers get it from its Secret; on
// Tekton only the kubectl tasks' pods mount it (the step's and the
// finally task that cleans up).
func TestEmitRBACKeepsTheTokenFromUserContainers(t *testing.T) {
	ex := filepath.Join(repoRoot, "examples", "resnet50-multinode")
	args := append([]string{"mlcube-compile", "--emit-rbac"}, exampleArgs(ex)...)
	out, stderr, code := compileArgs(t, append(args, "--backend", "argo")...)
	if code != 0 {
		t.Fatalf("argo: exit %d: %s", code, stderr)
	}
	docs := strings.Split(out, "\n---\n")
	var secret corev1.Secret
	if err := yaml.Unmarshal([]byte(docs[3]), &secret); err != nil {
		t.Fatal(err)
	}
	if secret.Name != "mlops-runner.service-account-token" || secret.Type != corev1.SecretTypeServiceAccountToken || secret.Annotations[corev1.ServiceAccountNameKey] != "mlops-runner" {
		t.Errorf("argo: document 4 is not mlops-runner's token Secret: %s", docs[3])
	}
	wf := validateWorkflow(t, "argo", out)
	if a := wf.Spec.AutomountServiceAccountToken; a == nil || *a || wf.Spec.Executor == nil || wf.Spec.Executor.ServiceAccountName != "mlops-runner" {
		t.Errorf("argo: automountServiceAccountToken %v, executor %+v; want false, and the executor under mlops-runner", a, wf.Spec.Executor)
	}
	out, stderr, code = compileArgs(t, append(args, "--backend", "tekton")...)
	if code != 0 {
		t.Fatalf("tekton: exit %d: %s", code, stderr)
	}
	pr := validatePipelineRun(t, "tekton", out)
	if tpl := pr.Spec.TaskRunTemplate.PodTemplate; tpl == nil || tpl.AutomountServiceAccountToken == nil || *tpl.AutomountServiceAccountToken {
		t.Errorf("tekton: the run's pod template %+v, want automountServiceAccountToken false", tpl)
	}
	mounts := map[string]bool{}
	for _, spec := range pr.Spec.TaskRunSpecs {
		if a := spec.PodTemplate.AutomountServiceAccountToken; a != nil {
			mounts[spec.PipelineTaskName] = *a
		}
	}
	if len(mounts) != 2 || !mounts["train"] || !mounts["cleanup"] {
		t.Errorf("tekton: tasks that mount the token: %v, want only the kubectl tasks train and cleanup", mounts)
	}
}
