package distributed

import (
	"fmt"
	"strings"

	kubeflow "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	mpivalidation "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/validation"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/mlcube-compile/mlcube-compile/backends/internal/kube"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
)

const (
	mpiGroup     = "kubeflow.org"
	mpiV1        = "kubeflow.org/v1"
	mpiContainer = "mpi"
)

// The MPIJob is done when its launcher is: mpi-operator v2 copies the
// launcher Job's counts into status.replicaStatuses.Launcher, setting
// succeeded to 1 when the Job completes and failed to the Job's failed
// pods. With runPolicy.backoffLimit 0, one failed launcher pod fails the
// Job, so failed > 0 means the MPIJob failed. Argo's conditions cannot
// look inside status.conditions, a list.
//
// A worker that fails also fails the step. With WaitForWorkersReady the
// launcher is created only once every worker is Ready, and a worker pod
// that fails first (restartPolicy Never: an admission error of the GPU
// plugin, an SSH server that exits) is counted in
// status.replicaStatuses.Worker.failed and nothing else: the operator
// neither recreates it nor sets the Failed condition, which it sets for
// evicted workers only (updateMPIJobStatus,
// pkg/controller/mpi_job_controller.go, v0.8.2). Argo's executor fails
// the step when any one of the failure condition's requirements holds
// (matchConditions, workflow/executor/resource.go); Tekton's wait script
// reads the count after the conditions (mpiStatus).
const (
	mpiSuccess = "status.replicaStatuses.Launcher.succeeded > 0"
	mpiFailure = "status.replicaStatuses.Launcher.failed > 0,status.replicaStatuses.Worker.failed > 0"
	mpiStatus  = `{.status.conditions[?(@.status=="True")].type} ` + FailedWorkers +
		`{.status.replicaStatuses.Worker.failed}`
)

// mpiJob builds the MPIJob: one launcher running mpirun, and the workers.
func mpiJob(p *ir.Pipeline, s *ir.Step, claim ClaimName, runName string) (*Job, error) {
	m := s.MPI
	launcher := container(p, s, mpiContainer, kube.Command(s.Command), nil, coordinatorResources(p, m.Launcher))
	for _, a := range s.Args {
		launcher.Args = append(launcher.Args, kube.Arg(a, noParams))
	}
	worker := container(p, s, mpiContainer, kube.Command(m.WorkerCommand), nil, s.Resources)
	meta := objectMeta(p, s)
	job := &kubeflow.MPIJob{
		TypeMeta:   metav1.TypeMeta{APIVersion: kubeflow.SchemeGroupVersion.String(), Kind: kubeflow.Kind},
		ObjectMeta: queuedJobMeta(p, s, meta, m.GenerateName, runName),
		Spec: kubeflow.MPIJobSpec{
			SlotsPerWorker:    ptr.To(int32(m.SlotsPerWorker)),
			SSHAuthMountPath:  m.SSHAuthMountPath,
			MPIImplementation: kubeflow.MPIImplementation(m.Implementation),
			// The launcher starts once every worker is Ready
			// (pkg/controller/mpi_job_controller.go, v0.8.0): with the
			// default, AtStartup, it races workers still pulling a large
			// image, and its one attempt (backoffLimit 0) fails.
			LauncherCreationPolicy: kubeflow.LauncherCreationPolicyWaitForWorkersReady,
			RunPolicy:              runPolicy(s),
			MPIReplicaSpecs:        mpiReplicas(p, s, claim, meta, launcher, worker),
		},
	}
	if err := validateMPIJob(job); err != nil {
		return nil, err
	}
	out := &Job{
		Object: job, Resource: "mpijobs", Group: mpiGroup,
		SuccessCondition: mpiSuccess, FailureCondition: mpiFailure,
		Status:    mpiStatus,
		Succeeded: string(kubeflow.JobSucceeded), Failed: string(kubeflow.JobFailed),
	}
	if m.APIVersion == mpiV1 {
		v1, err := toV1(job)
		if err != nil {
			return nil, err
		}
		out.Object = v1
	}
	return out, nil
}

// runPolicy runs the MPIJob once, for at most the step's timeout. A
// queued step's MPIJob is created suspended: Kueue admits it as one
// workload of its launcher and workers, and starts it by setting suspend
// to false once the queue has room for all of them
// (pkg/controller/jobs/mpijob/mpijob_controller.go, IsSuspended and
// RunWithPodSetsInfo, sigs.k8s.io/kueue v0.19.2), so a gang never holds
// part of its GPUs; no pod starts before then, even without Kueue's
// defaulting webhook.
func runPolicy(s *ir.Step) kubeflow.RunPolicy {
	rp := kubeflow.RunPolicy{
		CleanPodPolicy:          ptr.To(kubeflow.CleanPodPolicyRunning),
		BackoffLimit:            ptr.To(int32(0)),
		TTLSecondsAfterFinished: s.MPI.TTLSecondsAfterFinished,
	}
	if s.Timeout > 0 {
		rp.ActiveDeadlineSeconds = ptr.To(int64(s.Timeout.Seconds()))
	}
	if s.Queue != "" {
		rp.Suspend = ptr.To(true)
	}
	if s.MPI.ManagedBy != "" {
		rp.ManagedBy = ptr.To(s.MPI.ManagedBy)
	}
	return rp
}

// mpiReplicas are the launcher, running mpirun, and the workers, each
// pod run once: the MPIJob's attempt fails or succeeds whole.
func mpiReplicas(p *ir.Pipeline, s *ir.Step, claim ClaimName, meta metav1.ObjectMeta,
	launcher, worker corev1.Container) map[kubeflow.MPIReplicaType]*kubeflow.ReplicaSpec {
	m := s.MPI
	return map[kubeflow.MPIReplicaType]*kubeflow.ReplicaSpec{
		kubeflow.MPIReplicaTypeLauncher: {
			Replicas:      ptr.To(int32(1)),
			RestartPolicy: kubeflow.RestartPolicyNever,
			Template: corev1.PodTemplateSpec{
				ObjectMeta: meta,
				Spec: withGPUClaims(podSpec(p, s, claim, m.LauncherNodeSelector, m.LauncherTolerations, launcher),
					coordinatorResources(p, m.Launcher)),
			},
		},
		kubeflow.MPIReplicaTypeWorker: {
			Replicas:      ptr.To(int32(m.Workers)),
			RestartPolicy: kubeflow.RestartPolicyNever,
			Template: corev1.PodTemplateSpec{
				ObjectMeta: meta,
				Spec:       withGPUClaims(podSpec(p, s, claim, s.NodeSelector, s.Tolerations, worker), s.Resources),
			},
		},
	}
}

// validateMPIJob runs mpi-operator's defaulting and validation on a copy
// named as the API server would name it, so the worker hostname rule
// applies to the longest name the job can get.
func validateMPIJob(job *kubeflow.MPIJob) error {
	created := job.DeepCopy()
	created.Name = created.GenerateName + strings.Repeat("x", ir.GeneratedSuffixLen)
	kubeflow.SetDefaults_MPIJob(created)
	if errs := mpivalidation.ValidateMPIJob(created); len(errs) > 0 {
		return fmt.Errorf("the MPIJob fails mpi-operator's validation: %w", errs.ToAggregate())
	}
	return nil
}
