//go:build e2e

package e2e

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	jobset "sigs.k8s.io/jobset/api/jobset/v1alpha2"
	"sigs.k8s.io/yaml"
)

// A Dask step runs as a JobSet (sigs.k8s.io/jobset v0.12.0, whose
// controller trainer.sh starts) of three replicated jobs: the scheduler;
// the workers, started once the scheduler's port takes connections
// (dependsOn Ready); and the client, started once the workers run, which
// calls the step's function through dask.distributed's Client. The
// client's success ends the set (successPolicy Any, client): JobSet sets
// status.terminalState to Completed and deletes the Jobs still running,
// the scheduler's and the workers'. A failed Job sets it to Failed and
// deletes the rest the same way. A finished Job stays, with its pod and
// its log, until the JobSet goes. Every pod runs Debian's
// python3-distributed 2022.12.1 in the node's image (images.sh).
//
// The helpers below read what any such JobSet did, by the label JobSet
// puts on its Jobs and pods, so that the tests of a compiled Dask step
// (the JobSet an Argo resource template or a Tekton kubectl step creates)
// use them as the tests of the hand-written one here do.
const (
	// daskImage is the node's image with no entrypoint, run as uid 1000:
	// a container runs its args, as from a Debian image with Dask.
	daskImage = "mlcube-e2e/dask:1"
	// The replicated jobs of a Dask step's JobSet, each of whose one
	// container has the job's name.
	daskScheduler = "scheduler"
	daskWorker    = "worker"
	daskClient    = "client"
	// daskEndsCluster runs the scheduler or a worker (sh -c daskEndsCluster
	// sh dask worker ...) so that its pod fails whenever it ends: a worker
	// whose scheduler went away, or that SIGTERM stopped, exits 0, and a
	// Job counts a deleted pod that succeeded as done, so the set would run
	// on a worker short (TestE2EDaskJobSetFails's control shows it).
	daskEndsCluster = `trap "kill -TERM \$pid" TERM; "$@" & pid=$!; wait $pid; wait $pid; echo "$1 ended" >&2; exit 1`
	// daskSchedulerPort is where the workers and the client reach the
	// scheduler: <jobset>-scheduler-0-0.<jobset>, the scheduler pod's host
	// name in the JobSet's headless Service.
	daskSchedulerPort = 8786
)

// daskClientProgram is the hand-written client: a map of one task per
// "benchmark configuration", the i-th submitted to the i-th worker in
// turn so that every worker takes one, each returning its configuration,
// its result and the host that ran it; it prints one line "result
// {json}" per task, in order. E2E_CLIENT=hold makes it sleep in the
// middle (a step still running). SIGTERM ends it: as its container's
// process 1, Python would ignore it, and a client stopped with its JobSet
// would hold its pod the whole grace period.
const daskClientProgram = `import json, os, signal, socket, sys, time
from distributed import Client
signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
def run(config):
    import socket
    return {"config": config, "result": sum(i * i for i in range(config["n"])), "host": socket.gethostname()}
n = int(os.environ["MLCUBE_DASK_WORKERS"])
with Client(os.environ["DASK_SCHEDULER_ADDRESS"], timeout=120) as client:
    client.wait_for_workers(n, timeout=120)
    workers = sorted(client.scheduler_info()["workers"])
    configs = [{"n": 1000 * i} for i in range(1, 2 * n + 3)]
    futures = [client.submit(run, c, workers=[workers[i % n]], pure=False) for i, c in enumerate(configs)]
    if os.environ.get("E2E_CLIENT") == "hold":
        time.sleep(600)
    for row in client.gather(futures):
        print("result", json.dumps(row, sort_keys=True), flush=True)
`

// handDaskJobSet is a Dask step's JobSet as the compiler is to write
// one, without Kueue's label or an object store: the client writes its
// result to its log.
type handDaskJobSet struct {
	name    string
	workers int
	client  string // E2E_CLIENT: "" or "hold"
	// restricted runs every container as the restricted Pod Security
	// Standard asks, as a uid the image has no account for (HOME is /),
	// on a read-only root filesystem with an emptyDir at /tmp.
	restricted bool
}

// restrictedUID is a uid with no account in the image.
const restrictedUID = 1001

func (h handDaskJobSet) manifest(t *testing.T) string {
	t.Helper()
	wrap := []string{"sh", "-c", daskEndsCluster, "sh"}
	address := []corev1.EnvVar{
		{Name: "JOBSET_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{
			FieldPath: "metadata.labels['" + jobset.JobSetNameKey + "']"}}},
		{Name: "DASK_SCHEDULER_ADDRESS",
			Value: "tcp://$(JOBSET_NAME)-" + daskScheduler + "-0-0.$(JOBSET_NAME):" + strconv.Itoa(daskSchedulerPort)},
	}
	scheduler := corev1.Container{Name: daskScheduler,
		Args: slices.Concat(wrap, []string{"dask", "scheduler", "--port", strconv.Itoa(daskSchedulerPort),
			"--dashboard-address", ":8787"}),
		Ports: []corev1.ContainerPort{{Name: "tcp-comm", ContainerPort: daskSchedulerPort},
			{Name: "http-dashboard", ContainerPort: 8787}},
		ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{
			TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromString("tcp-comm")}}, PeriodSeconds: 2},
	}
	worker := corev1.Container{Name: daskWorker,
		Args: slices.Concat(wrap, []string{"dask", "worker", "$(DASK_SCHEDULER_ADDRESS)", "--name", "$(DASK_WORKER_NAME)",
			"--nthreads", "1", "--memory-limit", "1000000000", "--death-timeout", "60", "--no-nanny"}),
		Env: append(slices.Clone(address), corev1.EnvVar{Name: "DASK_WORKER_NAME",
			ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}}),
	}
	client := corev1.Container{Name: daskClient, Args: []string{"python3", "-c", daskClientProgram},
		Env: append(slices.Clone(address), corev1.EnvVar{Name: "MLCUBE_DASK_WORKERS", Value: strconv.Itoa(h.workers)},
			corev1.EnvVar{Name: "E2E_CLIENT", Value: h.client}),
	}
	job := func(name, after string, n int, c corev1.Container) jobset.ReplicatedJob {
		c.Image, c.ImagePullPolicy = daskImage, corev1.PullNever
		c.Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"),
			corev1.ResourceMemory: resource.MustParse("256Mi")}
		pod := corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, AutomountServiceAccountToken: ptr.To(false),
			Containers: []corev1.Container{c}}
		if h.restricted {
			pod.SecurityContext = &corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true),
				RunAsUser: ptr.To(int64(restrictedUID)), RunAsGroup: ptr.To(int64(restrictedUID)),
				SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}}
			pod.Containers[0].SecurityContext = &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false),
				Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}, ReadOnlyRootFilesystem: ptr.To(true)}
			pod.Volumes = []corev1.Volume{{Name: "tmp",
				VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
			pod.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "tmp", MountPath: "/tmp"}}
		}
		r := jobset.ReplicatedJob{Name: name, Replicas: 1, Template: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{
			CompletionMode: ptr.To(batchv1.IndexedCompletion), Parallelism: ptr.To(int32(n)), Completions: ptr.To(int32(n)),
			BackoffLimit: ptr.To(int32(0)), Template: corev1.PodTemplateSpec{Spec: pod},
		}}}
		if after != "" {
			r.DependsOn = []jobset.DependsOn{{Name: after, Status: jobset.DependencyReady}}
		}
		return r
	}
	js := jobset.JobSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: jobset.GroupVersion.String(), Kind: "JobSet"},
		ObjectMeta: metav1.ObjectMeta{Name: h.name},
		Spec: jobset.JobSetSpec{
			Network:       &jobset.Network{EnableDNSHostnames: ptr.To(true), PublishNotReadyAddresses: ptr.To(true)},
			SuccessPolicy: &jobset.SuccessPolicy{Operator: jobset.OperatorAny, TargetReplicatedJobs: []string{daskClient}},
			ReplicatedJobs: []jobset.ReplicatedJob{
				job(daskScheduler, "", 1, scheduler),
				job(daskWorker, daskScheduler, h.workers, worker),
				job(daskClient, daskWorker, 1, client),
			},
		},
	}
	out, err := json.Marshal(js)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// daskJobSetOnRealNode is a Dask JobSet manifest (hand-written or
// compiled; YAML or JSON) moved to namespace ns, with every pod kept on
// the real node and its cpu and memory shrunk, as newRealRun does for a
// workflow's pods and pinnedJob for an MPIJob's. Nothing else changes.
func daskJobSetOnRealNode(t *testing.T, manifest, ns string) string {
	t.Helper()
	return editJob(t, manifest, func(js map[string]any) {
		js["metadata"].(map[string]any)["namespace"] = ns
		jobs, _ := js["spec"].(map[string]any)["replicatedJobs"].([]any)
		for _, rj := range jobs {
			tmpl := rj.(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["template"].(map[string]any)
			pinPodSpec(t, tmpl)
		}
	})
}

// jobSetEnd waits until JobSet name has a terminal state, and returns it
// with the time from the JobSet's creation to the condition that set it,
// by the API server's clock (whole seconds).
func (c *cluster) jobSetEnd(t *testing.T, ns, name string, timeout time.Duration) (string, time.Duration) {
	t.Helper()
	var js jobset.JobSet
	ended := waitUntil(timeout, func() bool {
		out, err := c.run("", "-n", ns, "get", "jobsets.jobset.x-k8s.io/"+name, "-o", "json")
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(out), &js); err != nil {
			t.Fatal(err)
		}
		return js.Status.TerminalState != ""
	})
	if !ended {
		t.Fatalf("JobSet %s has no terminal state after %s\n%s\n%s", name, timeout, c.jobSetTable(t, ns, name),
			c.jobSetLogs(t, ns, name))
	}
	for _, cond := range js.Status.Conditions {
		if cond.Type == js.Status.TerminalState && cond.Status == metav1.ConditionTrue {
			return js.Status.TerminalState, cond.LastTransitionTime.Sub(js.CreationTimestamp.Time)
		}
	}
	t.Fatalf("JobSet %s: terminal state %s, and no condition of it: %+v", name, js.Status.TerminalState,
		js.Status.Conditions)
	return "", 0
}

// jobSetTable lists a JobSet's Jobs and pods, for a failure's message.
func (c *cluster) jobSetTable(t *testing.T, ns, name string) string {
	t.Helper()
	out, err := c.run("", "-n", ns, "get", "jobsets.jobset.x-k8s.io,jobs,pods", "-o", "wide")
	if err != nil {
		return err.Error()
	}
	return out
}

// jobSetLogs is the tail of the logs of a JobSet's pods, for a failure.
func (c *cluster) jobSetLogs(t *testing.T, ns, name string) string {
	t.Helper()
	out, err := c.run("", "-n", ns, "logs", "-l", jobset.JobSetNameKey+"="+name, "--tail=20", "--prefix",
		"--all-containers")
	if err != nil {
		return err.Error()
	}
	return out
}

// daskClientLog is the log of a Dask JobSet's client (its one pod, of
// the replicated job client), which stays once the set has ended.
func (c *cluster) daskClientLog(t *testing.T, ns, name string) string {
	t.Helper()
	return c.must(t, "", "-n", ns, "logs", "-l", jobset.JobSetNameKey+"="+name+","+jobset.ReplicatedJobNameKey+"="+
		daskClient, "-c", daskClient, "--tail=-1")
}

// daskRow is one task's row of a Dask map's result: its configuration,
// its result, and the host of the worker that ran it.
type daskRow struct {
	Config map[string]any `json:"config"`
	Result json.Number    `json:"result"`
	Host   string         `json:"host"`
}

// daskLogRows reads the rows of the lines "result {json}" of a client's
// log, in order.
func daskLogRows(t *testing.T, log string) []daskRow {
	t.Helper()
	var rows []daskRow
	for line := range strings.Lines(log) {
		data, ok := strings.CutPrefix(strings.TrimSpace(line), "result ")
		if !ok {
			continue
		}
		var row daskRow
		dec := json.NewDecoder(strings.NewReader(data))
		dec.UseNumber()
		if err := dec.Decode(&row); err != nil {
			t.Fatalf("the client's line %q: %v", line, err)
		}
		rows = append(rows, row)
	}
	return rows
}

// daskCSVRows reads a Dask map's table as the client writes it with
// pandas' to_csv (a compiled step's output): a header, then one row per
// task, each a column "host".
func daskCSVRows(t *testing.T, path string) []map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	records, err := csv.NewReader(f).ReadAll()
	if err != nil || len(records) < 2 {
		t.Fatalf("%s: %d records, %v", path, len(records), err)
	}
	var rows []map[string]string
	for _, rec := range records[1:] {
		row := map[string]string{}
		for i, k := range records[0] {
			row[k] = rec[i]
		}
		rows = append(rows, row)
	}
	return rows
}

// checkDaskHosts asserts that every task ran on a worker of JobSet name,
// whose pods' host names are <name>-worker-0-<index> (the Job
// <name>-worker-0, indexed), and that at least two workers took part (of
// workers); it returns the number of tasks each worker ran.
func checkDaskHosts(t *testing.T, name string, hosts []string, workers int) map[string]int {
	t.Helper()
	worker := regexp.MustCompile(`^` + regexp.QuoteMeta(name) + `-` + daskWorker + `-0-([0-9]+)$`)
	byHost := map[string]int{}
	for _, h := range hosts {
		if i, ok := daskWorkerIndex(worker, h); !ok || i >= workers {
			t.Errorf("a task ran on %q, not on one of the %d workers of %s", h, workers, name)
			continue
		}
		byHost[h]++
	}
	if len(byHost) < min(2, workers) {
		t.Errorf("the tasks ran on %v; want at least two workers", byHost)
	}
	return byHost
}

// daskWorkerIndex is the index of the worker whose host name is host, by
// worker (the pattern of its JobSet's workers' host names).
func daskWorkerIndex(worker *regexp.Regexp, host string) (int, bool) {
	m := worker.FindStringSubmatch(host)
	if m == nil {
		return 0, false
	}
	i, err := strconv.Atoi(m[1])
	return i, err == nil
}

// jobSetRunning lists a JobSet's pods and Jobs that have not ended: a
// pod that is not Succeeded or Failed, a Job without a Complete or
// Failed condition, or either while it is being deleted.
func (c *cluster) jobSetRunning(t *testing.T, ns, name string) []string {
	t.Helper()
	var left []string
	var pods corev1.PodList
	c.getJSON(t, &pods, "-n", ns, "get", "pods", "-l", jobset.JobSetNameKey+"="+name)
	for _, p := range pods.Items {
		if p.DeletionTimestamp != nil || (p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed) {
			left = append(left, "pod/"+p.Name+" ("+string(p.Status.Phase)+")")
		}
	}
	var jobs batchv1.JobList
	c.getJSON(t, &jobs, "-n", ns, "get", "jobs", "-l", jobset.JobSetNameKey+"="+name)
	for _, j := range jobs.Items {
		done := slices.ContainsFunc(j.Status.Conditions, func(c batchv1.JobCondition) bool {
			return (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue
		})
		if j.DeletionTimestamp != nil || !done {
			left = append(left, "job/"+j.Name)
		}
	}
	return left
}

// jobSetObjects lists every pod and Job of a JobSet, with the replicated
// job each belongs to.
func (c *cluster) jobSetObjects(t *testing.T, ns, name string) map[string]string {
	t.Helper()
	out := map[string]string{}
	var pods corev1.PodList
	c.getJSON(t, &pods, "-n", ns, "get", "pods", "-l", jobset.JobSetNameKey+"="+name)
	for _, p := range pods.Items {
		out["pod/"+p.Name] = p.Labels[jobset.ReplicatedJobNameKey]
	}
	var jobs batchv1.JobList
	c.getJSON(t, &jobs, "-n", ns, "get", "jobs", "-l", jobset.JobSetNameKey+"="+name)
	for _, j := range jobs.Items {
		out["job/"+j.Name] = j.Labels[jobset.ReplicatedJobNameKey]
	}
	return out
}

// getJSON decodes what kubectl get prints as JSON into v.
func (c *cluster) getJSON(t *testing.T, v any, args ...string) {
	t.Helper()
	if err := json.Unmarshal([]byte(c.must(t, "", append(args, "-o", "json")...)), v); err != nil {
		t.Fatal(err)
	}
}

// checkDaskEnded asserts what a Dask JobSet leaves once it has ended:
// within timeout nothing of it runs, and after success nothing but the
// client's finished Job and pod is there (JobSet deleted the scheduler's
// and the workers' Jobs and pods). It returns how long the rest took to
// go.
func (c *cluster) checkDaskEnded(t *testing.T, ns, name, state string, timeout time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	if !waitUntil(timeout, func() bool { return len(c.jobSetRunning(t, ns, name)) == 0 }) {
		t.Fatalf("%s after JobSet %s ended %s, still running: %v\n%s", timeout, name, state,
			c.jobSetRunning(t, ns, name), c.jobSetTable(t, ns, name))
	}
	took := time.Since(start)
	if state == string(jobset.JobSetCompleted) {
		for obj, rj := range c.jobSetObjects(t, ns, name) {
			if rj != daskClient {
				t.Errorf("JobSet %s Completed, and its %s's %s is still there", name, rj, obj)
			}
		}
	}
	return took
}

// deleteJobSet deletes a JobSet, as its owner's deletion would (Argo's
// Workflow, Tekton's step pod), and asserts that its Jobs, pods and
// headless Service go with it.
func (c *cluster) deleteJobSet(t *testing.T, ns, name string) {
	t.Helper()
	c.must(t, "", "-n", ns, "delete", "jobsets.jobset.x-k8s.io", name, "--wait=false")
	gone := func() bool {
		svc, _ := c.run("", "-n", ns, "get", "service", name, "--ignore-not-found", "-o", "name")
		return len(c.jobSetObjects(t, ns, name)) == 0 && strings.TrimSpace(svc) == ""
	}
	if !waitUntil(time.Minute, gone) {
		t.Fatalf("a minute after JobSet %s's deletion, left: %v", name,
			slices.Sorted(maps.Keys(c.jobSetObjects(t, ns, name))))
	}
}

// daskNamespace is the namespace of the hand-written Dask JobSets.
const daskNamespace = "e2e-dask"

// startDaskJobSet creates a hand-written Dask JobSet on the real node,
// after an earlier run's of that name.
func (c *cluster) startDaskJobSet(t *testing.T, h handDaskJobSet) {
	t.Helper()
	c.namespace(t, daskNamespace)
	c.must(t, "", "-n", daskNamespace, "delete", "jobsets.jobset.x-k8s.io", h.name, "--ignore-not-found", "--wait")
	c.must(t, daskJobSetOnRealNode(t, h.manifest(t), daskNamespace), "create", "-f", "-")
}

// checkDaskMap asserts the hand-written client's result: one row per
// configuration, each with its right sum, and the tasks spread over the
// workers; it returns the tasks per worker.
func checkDaskMap(t *testing.T, name, log string, workers int) map[string]int {
	t.Helper()
	rows := daskLogRows(t, log)
	if len(rows) != 2*workers+2 {
		t.Fatalf("%d result lines, want %d:\n%s", len(rows), 2*workers+2, log)
	}
	var hosts []string
	for i, row := range rows {
		n := 1000 * (i + 1)
		if got, want := row.Result.String(), strconv.Itoa((n-1)*n*(2*n-1)/6); fmt.Sprint(row.Config["n"]) !=
			strconv.Itoa(n) || got != want {
			t.Errorf("row %d: config %v, result %s; want n %d, result %s", i, row.Config, got, n, want)
		}
		hosts = append(hosts, row.Host)
	}
	return checkDaskHosts(t, name, hosts, workers)
}

// TestE2EDaskJobSetOnRealNode runs a hand-written Dask JobSet of two
// workers on the real node, as the compiler writes one: the client's map
// must print every row, the tasks must have run on both workers (each
// its own pod, by its host name), the JobSet must end Completed with its
// scheduler and workers deleted, and its deletion must take the rest.
// The restricted run does the same as the restricted Pod Security
// Standard asks, as a uid with no account on a read-only root
// filesystem: Dask needs only a writable /tmp (its workers' spill
// folder; tempfile.gettempdir finds no other).
func TestE2EDaskJobSetOnRealNode(t *testing.T) {
	c := e2eCluster(t)
	t.Parallel()
	for _, h := range []handDaskJobSet{{name: "dask-map", workers: 2},
		{name: "dask-restricted", workers: 2, restricted: true}} {
		t.Run(h.name, func(t *testing.T) {
			t.Parallel()
			c.startDaskJobSet(t, h)
			state, took := c.jobSetEnd(t, daskNamespace, h.name, 3*time.Minute)
			if state != string(jobset.JobSetCompleted) {
				t.Fatalf("JobSet %s: %s\n%s\n%s", h.name, state, c.jobSetTable(t, daskNamespace, h.name),
					c.jobSetLogs(t, daskNamespace, h.name))
			}
			byHost := checkDaskMap(t, h.name, c.daskClientLog(t, daskNamespace, h.name), h.workers)
			cleared := c.checkDaskEnded(t, daskNamespace, h.name, state, time.Minute)
			c.deleteJobSet(t, daskNamespace, h.name)
			t.Logf("JobSet %s: Completed %s after its creation; tasks per worker %v; its scheduler and workers "+
				"gone %s after; all gone with it", h.name, took, byHost, cleared.Round(time.Second))
		})
	}
}

// TestE2EDaskJobSetFails fails a hand-written Dask JobSet's run in the
// way TestE2ERealNodeDaskFails does not fail a compiled one's: the
// scheduler's pod is deleted while the client waits on the map, and the
// set must end Failed within a minute, nothing of it left running. (A
// control without daskEndsCluster, whose deleted worker was to leave the
// set running a worker short, ended Failed in one run of two: a dask
// worker's exit status at SIGTERM depends on when it comes.)
func TestE2EDaskJobSetFails(t *testing.T) {
	c := e2eCluster(t)
	t.Parallel()
	for _, tc := range []struct {
		h      handDaskJobSet
		delete string // the replicated job whose first pod is deleted
	}{
		{h: handDaskJobSet{name: "dask-lost-scheduler", workers: 2, client: "hold"}, delete: daskScheduler},
	} {
		t.Run(tc.h.name, func(t *testing.T) {
			t.Parallel()
			h, ns := tc.h, daskNamespace
			c.startDaskJobSet(t, h)
			t.Cleanup(func() { _, _ = c.run("", "-n", ns, "delete", "jobsets.jobset.x-k8s.io", h.name, "--wait=false") })
			c.deleteDaskPod(t, ns, h.name, tc.delete)
			from := "the deletion of its first " + tc.delete + "'s pod"
			start := time.Now()
			state, _ := c.jobSetEnd(t, ns, h.name, 3*time.Minute)
			took := time.Since(start)
			if state != string(jobset.JobSetFailed) || took > time.Minute {
				t.Fatalf("JobSet %s: %s %s after %s; want Failed within a minute\n%s", h.name, state,
					took.Round(time.Second), from, c.jobSetTable(t, ns, h.name))
			}
			cleared := c.checkDaskEnded(t, ns, h.name, state, 2*time.Minute)
			t.Logf("JobSet %s: Failed %s after %s; the rest ended %s after", h.name, took.Round(time.Second), from,
				cleared.Round(time.Second))
		})
	}
}

// failedAt is when a JobSet's Failed condition was set.
func (c *cluster) failedAt(t *testing.T, ns, name string) time.Time {
	t.Helper()
	return c.timeAt(t, ns, "jobsets.jobset.x-k8s.io/"+name,
		`{.status.conditions[?(@.type=="Failed")].lastTransitionTime}`)
}

// clientExit is when the container of a Dask JobSet's client ended.
func (c *cluster) clientExit(t *testing.T, ns, name string) time.Time {
	t.Helper()
	pods := c.must(t, "", "-n", ns, "get", "pods", "-l", jobset.JobSetNameKey+"="+name+","+
		jobset.ReplicatedJobNameKey+"="+daskClient, "-o", "name")
	return c.timeAt(t, ns, strings.TrimSpace(pods), "{.status.containerStatuses[0].state.terminated.finishedAt}")
}

// timeAt reads a time stamp of an object by a JSONPath.
func (c *cluster) timeAt(t *testing.T, ns, obj, path string) time.Time {
	t.Helper()
	s := c.jsonPath(t, ns, obj, path)
	at, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatalf("%s's %s: %q: %v", obj, path, s, err)
	}
	return at
}

// jobSetState is a JobSet's terminal state, "" while it runs.
func (c *cluster) jobSetState(t *testing.T, ns, name string) string {
	t.Helper()
	return c.jsonPath(t, ns, "jobsets.jobset.x-k8s.io/"+name, "{.status.terminalState}")
}

// deleteDaskPod deletes the first pod of a Dask JobSet's replicated job
// rj once its client has run for a while (its map submitted), without
// waiting for it to go.
func (c *cluster) deleteDaskPod(t *testing.T, ns, name, rj string) {
	t.Helper()
	sel := jobset.JobSetNameKey + "=" + name + "," + jobset.ReplicatedJobNameKey + "="
	waitFor(t, 3*time.Minute, func() string {
		return c.must(t, "", "-n", ns, "get", "pods", "-l", sel+daskClient, "-o", "jsonpath={.items[*].status.phase}")
	}, "Running")
	time.Sleep(8 * time.Second)
	pod := c.must(t, "", "-n", ns, "get", "pods", "-l", sel+rj+",batch.kubernetes.io/job-completion-index=0", "-o",
		"name")
	c.must(t, "", "-n", ns, "delete", strings.TrimSpace(pod), "--wait=false")
}

// daskExample is the example whose one step is a Dask step: a map of
// benchmark configurations, one task each, whose client writes a table
// with a column host to the run's claim.
const daskExample = "dask-map"

// daskExampleImage is daskExample's image on the node, its Containerfile
// laid out by scripts/e2e/cubeimage as the cubes' images are (images.sh),
// under the name of the node's registry, by which Tekton finds it too.
var daskExampleImage = cubeImage(daskExample)

// needDaskExample fails a test while the node has not the example's
// image, which images.sh always makes (an older cluster's: make e2e-up
// again).
func needDaskExample(t *testing.T) {
	t.Helper()
	if !slices.Contains(strings.Fields(nodeCtr(t, "images", "ls", "-q")), daskExampleImage) {
		t.Fatalf("the node has no image %s: a cluster up before scripts/e2e/images.sh made it? (make e2e-up)",
			daskExampleImage)
	}
}

// daskImageOnNode gives the node daskExampleImage under the name of every
// image of a compiled Dask JobSet (manifest): a Dask step names its image
// itself, which the real node's platform does not replace.
func daskImageOnNode(t *testing.T, manifest string) {
	t.Helper()
	js := decodeJobSet(t, manifest)
	var images []string
	for _, rj := range js.Spec.ReplicatedJobs {
		for _, c := range rj.Template.Spec.Template.Spec.Containers {
			images = append(images, c.Image)
		}
	}
	slices.Sort(images)
	for _, image := range slices.Compact(images) {
		if image != daskExampleImage {
			nodeCtr(t, "images", "tag", "--force", daskExampleImage, dockerReference(image))
		}
	}
}

// decodeJobSet decodes a JobSet manifest (YAML or JSON), its engine's
// placeholders filled.
func decodeJobSet(t *testing.T, manifest string) jobset.JobSet {
	t.Helper()
	var js jobset.JobSet
	if err := yaml.Unmarshal([]byte(asSubmitted(manifest)), &js); err != nil {
		t.Fatal(err)
	}
	return js
}

// daskExampleGID is the group of the user daskExample's image runs as
// (its Containerfile's USER 1000, whose group has the same number).
const daskExampleGID = 1000

// checkDaskFSGroup asserts that the client of a compiled Dask JobSet
// (manifest) runs with the fsGroup of daskExample's user, the example's
// platform's: the kubelet gives the claim's folder, root's on the node,
// to that group, so that the client can write its table there.
func checkDaskFSGroup(t *testing.T, manifest string) {
	t.Helper()
	for _, rj := range decodeJobSet(t, manifest).Spec.ReplicatedJobs {
		sc := rj.Template.Spec.Template.Spec.SecurityContext
		if rj.Name == daskClient && (sc == nil || ptr.Deref(sc.FSGroup, 0) != daskExampleGID) {
			t.Fatalf("the client's securityContext %+v has not fsGroup %d: it could not write to the claim",
				sc, daskExampleGID)
		}
	}
}

// daskOutput reads a compiled Dask JobSet: the number of its workers, and
// where its client writes the table, as a claim and a path in it.
func daskOutput(t *testing.T, manifest string) (workers int, claim, path string) {
	t.Helper()
	for _, rj := range decodeJobSet(t, manifest).Spec.ReplicatedJobs {
		pod := rj.Template.Spec.Template.Spec
		switch rj.Name {
		case daskWorker:
			workers = int(ptr.Deref(rj.Template.Spec.Parallelism, 1))
		case daskClient:
			i := slices.IndexFunc(pod.Containers[0].Env, func(e corev1.EnvVar) bool { return e.Name == "MLCUBE_DASK_OUTPUT" })
			if i < 0 {
				t.Fatal("the client has no MLCUBE_DASK_OUTPUT")
			}
			out := pod.Containers[0].Env[i].Value
			for _, m := range pod.Containers[0].VolumeMounts {
				rel, ok := strings.CutPrefix(out, strings.TrimSuffix(m.MountPath, "/")+"/")
				for _, v := range pod.Volumes {
					if ok && v.Name == m.Name && v.PersistentVolumeClaim != nil {
						claim, path = v.PersistentVolumeClaim.ClaimName, rel
					}
				}
			}
		}
	}
	if workers == 0 || claim == "" {
		t.Fatalf("the JobSet has %d workers, and its client writes to no claim", workers)
	}
	return workers, claim, path
}

// jobSetOfRun is the one JobSet in namespace ns, the one a run there
// created (each real-node run has a namespace of its own).
func (c *cluster) jobSetOfRun(t *testing.T, ns string) string {
	t.Helper()
	names := strings.Fields(c.must(t, "", "-n", ns, "get", "jobsets.jobset.x-k8s.io", "-o",
		"jsonpath={.items[*].metadata.name}"))
	if len(names) != 1 {
		t.Fatalf("JobSets in %s: %q, want one", ns, names)
	}
	return names[0]
}

// checkCompiledDask asserts what a compiled Dask step's JobSet (manifest,
// as the golden file has it) did, once its run has succeeded: it
// Completed; its table, in the run's claim, has a row per configuration
// (configs, the step's args), in order, each with the host of the worker
// that ran it, every worker among them; and nothing of it runs any more:
// its scheduler's and workers' Jobs and pods are gone, and only its
// client's finished Job and pod are left, until the run goes. It logs
// the rows. It returns the JobSet's name.
func (c *cluster) checkCompiledDask(t *testing.T, r *realRun, manifest string, configs []map[string]any) string {
	t.Helper()
	workers, claim, path := daskOutput(t, manifest)
	name := c.jobSetOfRun(t, r.ns)
	state, took := c.jobSetEnd(t, r.ns, name, time.Minute)
	if state != string(jobset.JobSetCompleted) {
		t.Fatalf("JobSet %s: %s", name, state)
	}
	dir, ok := r.volumes[claim]
	if !ok {
		t.Fatalf("the client writes to claim %s, which the run has no volume for", claim)
	}
	rows := daskCSVRows(t, filepath.Join(dir, path))
	if len(rows) != len(configs) {
		t.Errorf("%d rows in %s, want one per configuration, %d", len(rows), path, len(configs))
	}
	var hosts []string
	for i, row := range rows {
		t.Logf("%s row %d: %s", path, i, daskRowString(row))
		hosts = append(hosts, row["host"])
		if i >= len(configs) {
			continue
		}
		for k, v := range configs[i] {
			if row[k] != fmt.Sprint(v) {
				t.Errorf("row %d: %s %q, want configuration %d's %v", i, k, row[k], i, v)
			}
		}
		if _, err := strconv.ParseFloat(row["score"], 64); err != nil {
			t.Errorf("row %d: score %q: %v", i, row["score"], err)
		}
	}
	byHost := checkDaskHosts(t, name, hosts, workers)
	for i := range min(workers, len(rows)) {
		if host := fmt.Sprintf("%s-%s-0-%d", name, daskWorker, i); byHost[host] == 0 {
			t.Errorf("no row of worker %s: %v", host, byHost)
		}
	}
	cleared := c.checkDaskEnded(t, r.ns, name, state, time.Minute)
	t.Logf("JobSet %s: Completed %s after its creation; %d rows in %s, tasks per worker %v; its scheduler and "+
		"workers gone %s after; left until the run goes: %s", name, took, len(rows), path, byHost,
		cleared.Round(time.Second), c.jobSetLeft(t, r.ns, name))
	return name
}

// daskRowString is a row of a Dask map's table, its columns in order of
// name.
func daskRowString(row map[string]string) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(row)) {
		fmt.Fprintf(&b, "%s=%s ", k, row[k])
	}
	return strings.TrimSpace(b.String())
}

// jobSetLeft lists what is left of a JobSet that has ended, each with
// its state: a Job's finished condition, a pod's phase.
func (c *cluster) jobSetLeft(t *testing.T, ns, name string) string {
	t.Helper()
	var left []string
	var jobs batchv1.JobList
	c.getJSON(t, &jobs, "-n", ns, "get", "jobs", "-l", jobset.JobSetNameKey+"="+name)
	for _, j := range jobs.Items {
		var conds []string
		for _, cond := range j.Status.Conditions {
			if cond.Status == corev1.ConditionTrue {
				conds = append(conds, string(cond.Type))
			}
		}
		left = append(left, "job/"+j.Name+" ("+strings.Join(conds, ",")+")")
	}
	var pods corev1.PodList
	c.getJSON(t, &pods, "-n", ns, "get", "pods", "-l", jobset.JobSetNameKey+"="+name)
	for _, p := range pods.Items {
		left = append(left, "pod/"+p.Name+" ("+string(p.Status.Phase)+")")
	}
	return strings.Join(left, ", ")
}

// daskMapConfigs reads the configurations the Dask step of the pipeline
// at path maps over (its function's args.configs), in order.
func daskMapConfigs(t *testing.T, path string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		Steps map[string]struct {
			Dask struct {
				Args struct {
					Configs []map[string]any `json:"configs"`
				} `json:"args"`
			} `json:"dask"`
		} `json:"steps"`
	}
	if err := yaml.Unmarshal(data, &p); err != nil {
		t.Fatal(err)
	}
	for _, s := range p.Steps {
		if len(s.Dask.Args.Configs) > 0 {
			return s.Dask.Args.Configs
		}
	}
	t.Fatalf("%s: no Dask step with args.configs", path)
	return nil
}

// checkRunTakesDask deletes a run (obj: its Workflow or PipelineRun), and
// asserts that what its Dask JobSet left goes with it: the JobSet, by its
// owner reference (to the Workflow, or to the Tekton step's pod), then
// its Jobs, pods and headless Service.
func (c *cluster) checkRunTakesDask(t *testing.T, ns, obj, name string) {
	t.Helper()
	start := time.Now()
	c.must(t, "", "-n", ns, "delete", obj, "--wait=false")
	gone := func() bool {
		out, _ := c.run("", "-n", ns, "get", "jobsets.jobset.x-k8s.io/"+name+",service/"+name, "--ignore-not-found",
			"-o", "name")
		return strings.TrimSpace(out) == "" && len(c.jobSetObjects(t, ns, name)) == 0
	}
	if !waitUntil(2*time.Minute, gone) {
		t.Fatalf("2m after %s's deletion, JobSet %s left: %v\n%s", obj, name,
			slices.Sorted(maps.Keys(c.jobSetObjects(t, ns, name))), c.jobSetTable(t, ns, name))
	}
	t.Logf("%s deleted: JobSet %s, its Service, Jobs and pods gone %s after", obj, name,
		time.Since(start).Round(time.Second))
}

// TestE2ERealNodeDaskArgo runs dask-map's Argo workflow on the real node
// (its name matches run.sh's Argo tests, which run again against Argo
// 4's controller): Argo's executor creates the compiled JobSet, waits
// on its terminal state, and the run succeeds with the table in its
// claim, a row per configuration of the example's pipeline, which the
// client's map spread over both workers (checkCompiledDask). Once the
// run has succeeded, only the client's finished Job and pod are left of
// the JobSet, and the workflow's deletion takes them and the JobSet.
func TestE2ERealNodeDaskArgo(t *testing.T) {
	c := e2eCluster(t)
	needDaskExample(t)
	t.Parallel()
	golden := goldenDocuments(t, filepath.Join(repoRoot, "testdata", "golden", "argo", daskExample+".yaml"))
	docs := compileForRealNode(t, filepath.Join(repoRoot, "examples", daskExample), "argo", daskExampleImage)
	r := c.newRealRun(t, "dask", docs, decodeWorkflow(t, golden[len(golden)-1]))
	manifest := argoCreated(t, r.wf, "JobSet")
	daskImageOnNode(t, *manifest)
	checkDaskFSGroup(t, *manifest)
	*manifest = daskJobSetOnRealNode(t, *manifest, r.ns)
	done := c.wait(t, r.ns, r.create(t), 6*time.Minute)
	if done.Status.Phase != wfv1.WorkflowSucceeded {
		t.Fatalf("phase %s: %s\n%s\n%s", done.Status.Phase, done.Status.Message, nodeSummary(done),
			c.must(t, "", "-n", r.ns, "get", "jobsets.jobset.x-k8s.io,jobs,pods", "-o", "wide"))
	}
	configs := daskMapConfigs(t, filepath.Join(repoRoot, "examples", daskExample, "pipeline.yaml"))
	name := c.checkCompiledDask(t, r, *argoCreated(t, r.golden, "JobSet"), configs)
	c.checkRunTakesDask(t, r.ns, "workflow/"+done.Name, name)
}

// TestE2ETektonDaskOnRealNode runs dask-map's PipelineRun on the real
// node: the step's kubectl script creates the compiled JobSet and waits
// on its terminal state; what the JobSet did is checked as
// TestE2ERealNodeDaskArgo checks it, and the PipelineRun's deletion takes
// the JobSet (owned by the step's pod).
func TestE2ETektonDaskOnRealNode(t *testing.T) {
	c := e2eCluster(t)
	needDaskExample(t)
	t.Parallel()
	golden := goldenDocuments(t, filepath.Join(repoRoot, "testdata", "golden", "tekton", daskExample+".yaml"))
	docs := compileForRealNode(t, filepath.Join(repoRoot, "examples", daskExample), "tekton", daskExampleImage)
	r := c.newTektonRun(t, "dask", docs, decodePipelineRun(t, golden[len(golden)-1]))
	manifest := tektonCreated(t, r.pr, "JobSet")
	daskImageOnNode(t, *manifest)
	checkDaskFSGroup(t, *manifest)
	*manifest = daskJobSetOnRealNode(t, *manifest, r.ns)
	done := r.runSucceeded(t, 6*time.Minute, "taskruns,jobsets.jobset.x-k8s.io,jobs,pods")
	configs := daskMapConfigs(t, filepath.Join(repoRoot, "examples", daskExample, "pipeline.yaml"))
	name := c.checkCompiledDask(t, r.realRun, *tektonCreated(t, r.golden, "JobSet"), configs)
	c.checkRunTakesDask(t, r.ns, "pipelinerun/"+done.Name, name)
}
