package distributed

import (
	"strconv"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	jobset "sigs.k8s.io/jobset/api/jobset/v1alpha2"

	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
)

const jobSetGroup = "jobset.x-k8s.io"

// The replicated jobs of a Dask step's JobSet, and their containers.
const (
	schedulerJob = "scheduler"
	workerJob    = "worker"
	clientJob    = "client"
)

// JobSet's controller sets status.terminalState to Completed when the
// client's Job succeeds (the success policy) and to Failed when any Job
// fails, and deletes the Jobs still running then (setJobSetCompletedCondition,
// setJobSetFailedCondition and reconcile, pkg/controllers/
// jobset_controller.go, sigs.k8s.io/jobset v0.12.0).
const (
	jobSetSuccess = "status.terminalState == Completed"
	jobSetFailure = "status.terminalState == Failed"
)

// workerDeathSeconds is how long a worker waits for the scheduler before
// it exits, failing its pod.
const workerDeathSeconds = 60

// endsCluster runs a Dask scheduler or worker, which ends only when its
// cluster does, so that its pod fails whenever it ends: a worker whose
// scheduler went away, or that SIGTERM stopped, exits 0 (distributed
// 2022.12.1, cli/dask_worker.py), and a Job counts a deleted pod that
// succeeded as done, so the set would run on without it. SIGTERM reaches
// the program; the second wait waits for it to end.
const endsCluster = `"$@" & pid=$!; trap 'kill -TERM $pid' TERM; wait $pid; wait $pid; ` +
	`echo "$* ended, and a Dask $2 ends only with its cluster" >&2; exit 1`

// jobSetNameEnv is the JobSet's name, which the API server makes up from
// generateName: JobSet labels every pod with it.
var jobSetNameEnv = corev1.EnvVar{Name: "JOBSET_NAME", ValueFrom: &corev1.EnvVarSource{
	FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.labels['" + jobset.JobSetNameKey + "']"},
}}

// schedulerAddressEnv is the scheduler's address: JobSet gives each pod
// the hostname <Job>-<index> in a headless Service named after the
// JobSet (network.enableDNSHostnames), and names the scheduler's Job
// <jobset>-scheduler-0.
var schedulerAddressEnv = corev1.EnvVar{Name: "DASK_SCHEDULER_ADDRESS",
	Value: "tcp://$(JOBSET_NAME)-" + schedulerJob + "-0-0.$(JOBSET_NAME):" + strconv.Itoa(schedulerPort)}

// daskJobSet builds the JobSet of a Dask step: a scheduler; the workers,
// started once it is ready; and the client, which calls the function
// once they are, and whose success ends the set, its scheduler and
// workers deleted. Any Job that fails fails the set at once (no failure
// policy): the engine retries the step.
func daskJobSet(p *ir.Pipeline, s *ir.Step, claim ClaimName, runName string) (*Job, error) {
	d := s.Dask
	setup := packagesEnv(d)
	meta := objectMeta(p, s)
	bare := *s
	bare.Mounts = nil

	scheduler := schedulerContainer(p, &bare, "scheduler", []string{"dask", "scheduler", "--port",
		strconv.Itoa(schedulerPort), "--dashboard-address", ":" + strconv.Itoa(dashboardPort)}, setup)
	// The scheduler serves its dashboard (and /health) before it listens
	// for workers (Scheduler.__init__ and start, distributed 2022.12.1):
	// it is ready when its port takes connections.
	ready := &corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{
		Port: intstr.FromString("tcp-comm")}}, PeriodSeconds: 2}
	scheduler.ReadinessProbe = ready
	scheduler.Args = append([]string{"sh", "-c", endsCluster, "sh"}, scheduler.Args...)

	sized := d.Worker
	sized.LimitsEqualRequests = true
	workerArgs := append([]string{"sh", "-c", endsCluster, "sh", "dask", "worker", "$(DASK_SCHEDULER_ADDRESS)",
		"--name", "$(DASK_WORKER_NAME)"}, workerSizing(d.Worker)...)
	workerArgs = append(workerArgs, "--death-timeout", strconv.Itoa(workerDeathSeconds), "--no-nanny")
	worker := daskContainer(p, &bare, workerJob, workerArgs, sized,
		append([]corev1.EnvVar{jobSetNameEnv, schedulerAddressEnv, {Name: "DASK_WORKER_NAME",
			ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}}},
			setup...))

	client := daskContainer(p, s, clientJob, []string{"python3", "-c", runner}, s.Resources,
		append([]corev1.EnvVar{jobSetNameEnv, schedulerAddressEnv}, daskRunnerEnv(d, setup)...))

	js := &jobset.JobSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: jobset.GroupVersion.String(), Kind: "JobSet"},
		ObjectMeta: queuedJobMeta(p, s, meta, d.GenerateName, runName),
		Spec: jobset.JobSetSpec{
			Network: &jobset.Network{EnableDNSHostnames: ptr.To(true), PublishNotReadyAddresses: ptr.To(true)},
			SuccessPolicy: &jobset.SuccessPolicy{Operator: jobset.OperatorAny,
				TargetReplicatedJobs: []string{clientJob}},
			ReplicatedJobs: []jobset.ReplicatedJob{
				replicatedJob(s, schedulerJob, "", 1, meta,
					podSpec(p, &bare, claim, s.NodeSelector, s.Tolerations, scheduler)),
				replicatedJob(s, workerJob, schedulerJob, d.Workers, meta,
					withGPUClaims(podSpec(p, &bare, claim, d.WorkerNodeSelector, d.WorkerTolerations, worker), d.Worker)),
				replicatedJob(s, clientJob, workerJob, 1, meta,
					withGPUClaims(podSpec(p, s, claim, s.NodeSelector, s.Tolerations, client), s.Resources)),
			},
		},
	}
	// A queued JobSet is created suspended: Kueue admits its three
	// replicated jobs as one workload, whole or not at all, and resumes
	// it (PodSets and RunWithPodSetsInfo, pkg/controller/jobs/jobset/
	// jobset_controller.go, sigs.k8s.io/kueue v0.19.2).
	if s.Queue != "" {
		js.Spec.Suspend = ptr.To(true)
	}
	if d.ManagedBy != "" {
		js.Spec.ManagedBy = ptr.To(d.ManagedBy)
	}
	if err := validateJobSet(js); err != nil {
		return nil, err
	}
	return &Job{
		Object: js, Resource: "jobsets", Group: jobSetGroup,
		SuccessCondition: jobSetSuccess, FailureCondition: jobSetFailure,
		Status: "{.status.terminalState}", Succeeded: "Completed", Failed: "Failed",
	}, nil
}

// replicatedJob is one replicated job of a Dask step's JobSet: an
// indexed Job of n pods that run pod once, started when the replicated
// job after is ready (its pods ready: the scheduler's probe passed, the
// workers started), and stopped at the step's timeout.
func replicatedJob(s *ir.Step, name, after string, n int, meta metav1.ObjectMeta,
	pod corev1.PodSpec) jobset.ReplicatedJob {
	job := batchv1.JobSpec{
		CompletionMode: ptr.To(batchv1.IndexedCompletion),
		Parallelism:    ptr.To(int32(n)), Completions: ptr.To(int32(n)),
		BackoffLimit: ptr.To(int32(0)),
		Template:     corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: meta.Labels}, Spec: pod},
	}
	if s.Timeout > 0 {
		job.ActiveDeadlineSeconds = ptr.To(int64(s.Timeout.Seconds()))
	}
	r := jobset.ReplicatedJob{Name: name, Replicas: 1, Template: batchv1.JobTemplateSpec{Spec: job}}
	if after != "" {
		r.DependsOn = []jobset.DependsOn{{Name: after, Status: jobset.DependencyReady}}
	}
	return r
}
