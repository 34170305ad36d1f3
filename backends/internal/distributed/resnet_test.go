package distributed_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	kubeflow "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	corev1 "k8s.io/api/core/v1"

	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/compiler"
	"github.com/mlcube-compile/mlcube-compile/internal/enginetest"
	"github.com/mlcube-compile/mlcube-compile/internal/manifestcheck"
)

func TestResNetMultinodeRunsFourGPUWorkers(t *testing.T) {
	for _, backend := range []string{"argo", "tekton"} {
		t.Run(backend, func(t *testing.T) {
			out := manifestcheck.Example(t, backend, "resnet50-multinode")
			jobs := enginetest.Jobs(t, out.Run)
			if len(jobs) != 1 {
				t.Fatalf("want one MPIJob, got %d objects", len(jobs))
			}
			job := enginetest.MPIJob(t, jobs[0])
			worker := job.Spec.MPIReplicaSpecs[kubeflow.MPIReplicaTypeWorker]
			if *worker.Replicas != 4 {
				t.Errorf("workers: got %d, want 4", *worker.Replicas)
			}
			if gpu := worker.Template.Spec.Containers[0].Resources.Limits["nvidia.com/gpu"]; gpu.String() != "1" {
				t.Errorf("worker GPU limit: got %q, want 1", gpu.String())
			}
			launcher := enginetest.Launcher(job)
			if cmd := strings.Join(launcher.Command, " "); !strings.HasPrefix(cmd,
				"mpirun -np 4 -x DATASET_DIR -x MODEL_DIR -x OMP_NUM_THREADS -x OUTPUT_DIR -x REGISTRY python ") {
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
			if *rp.BackoffLimit != 0 || *rp.CleanPodPolicy != kubeflow.CleanPodPolicyRunning ||
				rp.ActiveDeadlineSeconds == nil || *rp.ActiveDeadlineSeconds != 86400 {
				t.Errorf("runPolicy: got %+v", rp)
			}
			if wf, ok := out.Run.(*wfv1.Workflow); ok {
				for _, tmpl := range wf.Spec.Templates {
					if r := tmpl.Resource; r != nil && r.Action != "delete" {
						if r.SuccessCondition != "status.replicaStatuses.Launcher.succeeded > 0" ||
							r.FailureCondition != "status.replicaStatuses.Launcher.failed > 0,status.replicaStatuses.Worker.failed > 0" ||
							!r.SetOwnerReference || r.Action != "create" {
							t.Errorf("resource template: got %+v", r)
						}
					}
				}
			} else if backend == "argo" {
				t.Errorf("the run is a %T, want a Workflow", out.Run)
			}
		})
	}
}

func TestMPIJobAPIVersionV1(t *testing.T) {
	files, pipeline := v1MPIFiles(t)
	own := files
	own.Task = pipeline
	out := manifestcheck.BuildFor(t, "argo", own, emit.Options{})
	if stderr := out.Stderr(); !out.Failed() ||
		!strings.Contains(stderr, "pipeline.yaml:16:7: steps.train.mpi.sshAuthMountPath: kubeflow.org/v1 MPIJobs (the "+
			"training operator's) start ranks through kubectl exec, not SSH") {
		t.Errorf("sshAuthMountPath with v1: failed %v, %q; want an error at the field", out.Failed(), stderr)
	}
	for _, backend := range []string{"argo", "tekton"} {
		enginetest.CheckV1MPIJob(t, v1MPIJob(t, files, backend))
	}
}

// v1MPIFiles writes seed 002 for kubeflow.org/v1: the platform with
// mpi.apiVersion v1, and the pipeline without v2's SSH settings. It
// returns the files to compile, and seed 002's own pipeline file.
func v1MPIFiles(t *testing.T) (compiler.Options, string) {
	t.Helper()
	ex := enginetest.Example(t, "resnet50-multinode")
	read := func(name string) string {
		raw, err := os.ReadFile(filepath.Join(ex, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(raw)
	}
	var kept []string
	for _, line := range strings.Split(read("pipeline.yaml"), "\n") {
		if !strings.Contains(line, "sshAuthMountPath:") && !strings.Contains(line, "workerCommand:") {
			kept = append(kept, line)
		}
	}
	dir := enginetest.WriteFiles(t, map[string]string{
		"platform.yaml": strings.Replace(read("platform.yaml"), "kubeflow.org/v2beta1", "kubeflow.org/v1", 1),
		"pipeline.yaml": strings.Join(kept, "\n"),
		"mlops.env":     "REGISTRY=docker.io\n",
	})
	files := compiler.Options{MLCube: ex, Platform: filepath.Join(dir, "platform.yaml"),
		Task: filepath.Join(dir, "pipeline.yaml")}
	return files, filepath.Join(ex, "pipeline.yaml")
}

// v1MPIJob compiles files for backend and returns the v1 MPIJob it creates.
func v1MPIJob(t *testing.T, files compiler.Options, backend string) map[string]any {
	t.Helper()
	job := enginetest.Jobs(t, manifestcheck.BuildFor(t, backend, files, emit.Options{}).Must(t).Run)[0]
	if job["apiVersion"] != "kubeflow.org/v1" {
		t.Fatalf("apiVersion: got %v", job["apiVersion"])
	}
	return job
}
