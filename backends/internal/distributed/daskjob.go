package distributed

import (
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/mlcube-compile/mlcube-compile/backends/internal/kube"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
)

const (
	daskGroup      = "kubernetes.dask.org"
	daskAPIVersion = daskGroup + "/v1"
	schedulerPort  = 8786
	dashboardPort  = 8787
	// RunLabel and StepLabel select a job's scheduler: the operator names
	// the cluster after the job, whose name the API server makes up.
	RunLabel  = "mlcube-compile/run"
	StepLabel = "mlcube-compile/step"
)

// The operator sets status.jobStatus to Successful or Failed when the job
// runner pod succeeds or fails, and deletes the cluster then.
const (
	daskSuccess = "status.jobStatus == Successful"
	daskFailure = "status.jobStatus == Failed"
)

// runner is the job runner's program. It reads everything it runs from
// env vars, so that no value of the spec is ever Python source. It calls
// the function once the step's workers (an adaptive cluster's minimum)
// have joined, or fails when they do not within the timeout. As its
// pod's first process it would ignore SIGTERM, holding a stopped run's
// pod for the grace period; it exits on it.
const runner = `import importlib, json, os, signal, sys
from dask.distributed import Client
signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
module, _, name = os.environ["MLCUBE_DASK_FUNCTION"].rpartition(".")
function = getattr(importlib.import_module(module), name)
kwargs = json.loads(os.environ["MLCUBE_DASK_ARGS"])
output = os.environ["MLCUBE_DASK_OUTPUT"]
timeout = int(os.environ["MLCUBE_DASK_CONNECT_TIMEOUT"])
with Client(os.environ["DASK_SCHEDULER_ADDRESS"], timeout=timeout) as client:
    client.wait_for_workers(int(os.environ["MLCUBE_DASK_WORKERS"]), timeout=timeout)
    table = function(**kwargs)
if "://" not in output:
    os.makedirs(os.path.dirname(output), exist_ok=True)
table.to_csv(output, index=False)
print("wrote", output)
`

// Autoscaler is the DaskAutoscaler of an adaptive Dask step.
type Autoscaler struct {
	Minimum, Maximum int
	Namespace        string
}

// Object is the DaskAutoscaler for the cluster of the job named job.
func (a *Autoscaler) Object(job string) map[string]any {
	meta := map[string]any{"name": job}
	if a.Namespace != "" {
		meta["namespace"] = a.Namespace
	}
	return map[string]any{
		"apiVersion": daskAPIVersion, "kind": "DaskAutoscaler", "metadata": meta,
		"spec": map[string]any{"cluster": job, "minimum": a.Minimum, "maximum": a.Maximum},
	}
}

type daskJobObject struct {
	metav1.TypeMeta `json:",inline"`
	Metadata        metav1.ObjectMeta `json:"metadata"`
	Spec            daskJobSpec       `json:"spec"`
}

type daskJobSpec struct {
	Job     daskPod         `json:"job"`
	Cluster daskClusterSpec `json:"cluster"`
}

type daskClusterSpec struct {
	Spec struct {
		Scheduler daskScheduler `json:"scheduler"`
		Worker    daskWorker    `json:"worker"`
	} `json:"spec"`
}

type daskPod struct {
	Metadata daskMeta       `json:"metadata"`
	Spec     corev1.PodSpec `json:"spec"`
}

type daskMeta struct {
	Labels map[string]string `json:"labels,omitempty"`
}

type daskScheduler struct {
	daskPod
	Service corev1.ServiceSpec `json:"service"`
}

type daskWorker struct {
	Replicas int `json:"replicas"`
	daskPod
}

// daskRunnerEnv is the job runner's environment: the setup packages,
// the function to call and where its output goes, with the credentials of
// an output secret.
func daskRunnerEnv(d *ir.DaskJob, setup []corev1.EnvVar) []corev1.EnvVar {
	env := append(setup,
		corev1.EnvVar{Name: "MLCUBE_DASK_FUNCTION", Value: d.Function},
		corev1.EnvVar{Name: "MLCUBE_DASK_ARGS", Value: d.Args},
		corev1.EnvVar{Name: "MLCUBE_DASK_OUTPUT", Value: d.Output},
		corev1.EnvVar{Name: "MLCUBE_DASK_WORKERS", Value: strconv.Itoa(d.Workers)},
		corev1.EnvVar{Name: "MLCUBE_DASK_CONNECT_TIMEOUT", Value: strconv.Itoa(startupSeconds)},
	)
	if d.OutputSecret != "" {
		for _, key := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"} {
			env = append(env, corev1.EnvVar{Name: key, ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
				LocalObjectReference: corev1.LocalObjectReference{Name: d.OutputSecret}, Key: key,
			}}})
		}
	}
	return env
}

// schedulerContainer is the scheduler's container, named name, running
// args, with its ports and probes.
func schedulerContainer(p *ir.Pipeline, bare *ir.Step, name string, args []string,
	setup []corev1.EnvVar) corev1.Container {
	scheduler := daskContainer(p, bare, name, args, coordinatorResources(p, ir.Resources{}), setup)
	scheduler.Ports = []corev1.ContainerPort{
		{Name: "tcp-comm", ContainerPort: schedulerPort, Protocol: corev1.ProtocolTCP},
		{Name: "http-dashboard", ContainerPort: dashboardPort, Protocol: corev1.ProtocolTCP},
	}
	probe := &corev1.Probe{
		ProbeHandler: corev1.ProbeHandler{
			HTTPGet: &corev1.HTTPGetAction{Path: "/health", Port: intstr.FromString("http-dashboard")},
		},
		InitialDelaySeconds: 5,
		PeriodSeconds:       10,
	}
	scheduler.ReadinessProbe, scheduler.LivenessProbe = probe, probe.DeepCopy()
	scheduler.LivenessProbe.InitialDelaySeconds = 15
	// The image's prepare.sh installs the setup packages before the
	// scheduler starts; liveness waits until the startup probe passes.
	scheduler.StartupProbe = probe.DeepCopy()
	scheduler.StartupProbe.InitialDelaySeconds = 0
	scheduler.StartupProbe.FailureThreshold = startupSeconds / probePeriod
	return scheduler
}

// daskJob builds the DaskJob: the job runner that calls the function, a
// scheduler and its Service, and the workers.
func daskJob(p *ir.Pipeline, s *ir.Step, claim ClaimName, runName string) *Job {
	d := s.Dask
	setup := packagesEnv(d)
	runnerEnv := daskRunnerEnv(d, setup)
	labels := objectMeta(p, s).Labels
	selector := map[string]string{RunLabel: runName, StepLabel: s.Name, "dask.org/component": "scheduler"}
	job := &daskJobObject{
		TypeMeta: metav1.TypeMeta{APIVersion: daskAPIVersion, Kind: "DaskJob"},
		Metadata: metav1.ObjectMeta{GenerateName: d.GenerateName, Namespace: p.Namespace,
			Labels: withRun(labels, runName, s.Name)},
	}
	runnerC := daskContainer(p, s, "job", []string{"python3", "-c", runner}, s.Resources, runnerEnv)
	job.Spec.Job = daskPod{Metadata: daskMeta{Labels: labels},
		Spec: podSpec(p, s, claim, s.NodeSelector, s.Tolerations, runnerC)}
	if s.Timeout > 0 {
		secs := int64(s.Timeout.Seconds())
		job.Spec.Job.Spec.ActiveDeadlineSeconds = &secs
	}
	bare := *s
	bare.Mounts = nil
	scheduler := schedulerContainer(p, &bare, "scheduler", []string{"dask-scheduler"}, setup)
	cs := &job.Spec.Cluster.Spec
	cs.Scheduler.daskPod = daskPod{Metadata: daskMeta{Labels: withRun(labels, runName, s.Name)},
		Spec: podSpec(p, &bare, claim, s.NodeSelector, s.Tolerations, scheduler)}
	cs.Scheduler.Service = corev1.ServiceSpec{
		Type:     corev1.ServiceTypeClusterIP,
		Selector: selector,
		Ports: []corev1.ServicePort{
			{Name: "tcp-comm", Protocol: corev1.ProtocolTCP, Port: schedulerPort, TargetPort: intstr.FromString("tcp-comm")},
			{Name: "http-dashboard", Protocol: corev1.ProtocolTCP, Port: dashboardPort,
				TargetPort: intstr.FromString("http-dashboard")},
		},
	}
	sized := d.Worker
	sized.LimitsEqualRequests = true
	worker := daskContainer(p, &bare, "worker",
		append([]string{"dask-worker", "--name", "$(DASK_WORKER_NAME)"}, workerSizing(d.Worker)...), sized, setup)
	cs.Worker = daskWorker{Replicas: d.Workers, daskPod: daskPod{Metadata: daskMeta{Labels: labels},
		Spec: podSpec(p, &bare, claim, d.WorkerNodeSelector, d.WorkerTolerations, worker)}}
	// Pods of a Dask cluster are restarted by their Deployments.
	cs.Scheduler.Spec.RestartPolicy, cs.Worker.Spec.RestartPolicy = "", ""
	out := &Job{
		Object: job, Resource: "daskjobs", Group: daskGroup,
		SuccessCondition: daskSuccess, FailureCondition: daskFailure,
		Status: "{.status.jobStatus}", Succeeded: "Successful", Failed: "Failed",
	}
	if d.Autoscale != nil {
		out.Autoscaler = &Autoscaler{Minimum: d.Autoscale.Minimum, Maximum: d.Autoscale.Maximum, Namespace: p.Namespace}
	}
	return out
}

// startupSeconds is how long the scheduler may take to install the setup
// packages and start, and how long the runner's client waits for it.
const (
	startupSeconds = 900
	probePeriod    = 10
)

// workerSizing sizes a worker to what it asks for: a thread per CPU and
// a memory limit of its memory, so that Dask spills and pauses before the
// kubelet kills it. A worker otherwise sizes itself from the node's CPUs
// and memory, not the pod's.
func workerSizing(r ir.Resources) []string {
	var args []string
	if r.CPU != "" {
		q := kube.Quantity(r.CPU)
		args = append(args, "--nthreads", strconv.FormatInt(max(1, q.Value()), 10))
	}
	if r.Memory != "" {
		q := kube.Quantity(r.Memory)
		args = append(args, "--memory-limit", strconv.FormatInt(q.Value(), 10))
	}
	return args
}

// coordinatorResources are what a job's coordinating container asks for
// when the step says nothing (the Dask scheduler always, the MPI launcher
// without mpi.launcher): none, unless the platform wants limits on every
// container, when it gets a modest fixed size, so that a ResourceQuota
// that counts limits admits its pod rather than leaving the step waiting.
func coordinatorResources(p *ir.Pipeline, asked ir.Resources) ir.Resources {
	if asked.CPU != "" || asked.Memory != "" || !p.LimitsEqualRequests {
		return asked
	}
	return ir.Resources{CPU: "1", Memory: "2Gi", LimitsEqualRequests: true}
}

// daskContainer is a container of the Dask cluster. Its args go to the
// image's entrypoint, which installs the setup packages first.
func daskContainer(p *ir.Pipeline, s *ir.Step, name string, args []string, r ir.Resources,
	extra []corev1.EnvVar) corev1.Container {
	c := container(p, s, name, nil, args, r)
	c.Env = append(c.Env, extra...)
	return c
}

// packagesEnv asks the dask image's prepare.sh to install the setup
// packages when each container starts.
func packagesEnv(d *ir.DaskJob) []corev1.EnvVar {
	var out []corev1.EnvVar
	for _, e := range []struct {
		name string
		pkgs []string
	}{{"EXTRA_APT_PACKAGES", d.AptPackages}, {"EXTRA_CONDA_PACKAGES", d.CondaPackages},
		{"EXTRA_PIP_PACKAGES", d.PipPackages}} {
		if len(e.pkgs) > 0 {
			out = append(out, corev1.EnvVar{Name: e.name, Value: strings.Join(e.pkgs, " ")})
		}
	}
	return out
}

func withRun(labels map[string]string, run, step string) map[string]string {
	out := map[string]string{RunLabel: run, StepLabel: step}
	for k, v := range labels {
		out[k] = v
	}
	return out
}
