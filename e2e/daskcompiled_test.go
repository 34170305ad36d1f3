//go:build e2e

package e2e

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"
	jobset "sigs.k8s.io/jobset/api/jobset/v1alpha2"
	"sigs.k8s.io/yaml"
)

// The tests of a compiled Dask step beyond its success (daskreal_test.go):
// how a run of examples/dask-map, changed, fails, and how Kueue admits
// its JobSet. Each compiles a copy of the example for Argo on the real
// node, as TestE2ERealNodeDaskArgo compiles the example itself.

// compileDaskMap compiles a copy of examples/dask-map for Argo on the
// real node: its step maps configs (nil: the example's own), and its
// platform has the fields of extra besides its own. It returns the
// documents and the configurations.
func compileDaskMap(t *testing.T, configs []map[string]any, extra map[string]any) ([]string, []map[string]any) {
	t.Helper()
	example := filepath.Join(repoRoot, "examples", daskExample)
	if configs == nil {
		configs = daskMapConfigs(t, filepath.Join(example, "pipeline.yaml"))
	}
	dir := t.TempDir()
	var pipeline, platform map[string]any
	for file, v := range map[string]*map[string]any{"pipeline.yaml": &pipeline, "platform.yaml": &platform} {
		data, err := os.ReadFile(filepath.Join(example, file))
		if err != nil {
			t.Fatal(err)
		}
		if err := yaml.Unmarshal(data, v); err != nil {
			t.Fatal(err)
		}
	}
	step := pipeline["steps"].(map[string]any)["benchmark"].(map[string]any)["dask"].(map[string]any)
	step["args"].(map[string]any)["configs"] = configs
	maps.Copy(platform, extra)
	for file, v := range map[string]any{"pipeline.yaml": pipeline, "platform.yaml": platform} {
		data, err := yaml.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, file), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	docs, _ := realNodeCompile(t, dir, "argo", daskExampleImage, nil)
	return docs, configs
}

// newDaskRun prepares a compiled dask-map workflow's run (docs) on the
// real node, as TestE2ERealNodeDaskArgo does; it returns the run and the
// manifest of the JobSet its step creates, to change further before the
// run is created.
func (c *cluster) newDaskRun(t *testing.T, name string, docs []string) (*realRun, *string) {
	t.Helper()
	r := c.newRealRun(t, name, docs, decodeWorkflow(t, docs[len(docs)-1]))
	manifest := argoCreated(t, r.wf, "JobSet")
	daskImageOnNode(t, *manifest)
	checkDaskFSGroup(t, *manifest)
	*manifest = daskJobSetOnRealNode(t, *manifest, r.ns)
	return r, manifest
}

// daskKeep is a finalizer of the tests' own: a failed run's exit handler
// deletes its JobSets (the compiled cleanup-jobs), and the finalizer
// keeps the JobSet, its status and what is left of it (its Jobs go only
// with it) until the test has read them and releases it.
const daskKeep = "e2e.mlcube-compile.io/keep"

// keepJobSet adds daskKeep to a JobSet manifest, and releases every
// JobSet of namespace ns when the test ends.
func (c *cluster) keepJobSet(t *testing.T, manifest *string, ns string) {
	t.Helper()
	*manifest = editJob(t, *manifest, func(js map[string]any) {
		js["metadata"].(map[string]any)["finalizers"] = []any{daskKeep}
	})
	t.Cleanup(func() {
		out, _ := c.run("", "-n", ns, "get", "jobsets.jobset.x-k8s.io", "-o", "name")
		for _, js := range strings.Fields(out) {
			_, _ = c.run("", "-n", ns, "patch", js, "--type=merge", "-p", `{"metadata":{"finalizers":null}}`)
		}
	})
}

// daskLongMap are configurations enough for two workers to work on for
// over 30 seconds on the real node, as daskJobSetOnRealNode shrinks them
// (each about 0.6 s once scikit-learn is imported, which takes the first
// about 9 s; a run of them to the end, measured 2026-11-29: the client
// ran 65 s, its workers' cross-validations alone 17 and 22 s).
func daskLongMap() []map[string]any {
	var configs []map[string]any
	for i := range 96 {
		configs = append(configs, map[string]any{"model": []string{"ridge", "lasso"}[i%2], "samples": 20000,
			"features": 50})
	}
	return configs
}

// TestE2ERealNodeDaskFails fails a compiled dask-map run on the real node
// two ways (its name matches run.sh's Argo tests, which run again against
// Argo 4's controller): its client raises (a configuration's model is
// unknown: benchmark_map.evaluate's KeyError, which the client's gather
// raises); a worker's pod is deleted while the client works (a map long
// enough, daskLongMap; the scheduler's log says that the client has
// connected). Each time the JobSet must end Failed, the workflow Failed
// within 90 seconds of the event (the client's exit; the deletion), and
// nothing of the JobSet run any more.
func TestE2ERealNodeDaskFails(t *testing.T) {
	c := e2eCluster(t)
	needDaskExample(t)
	t.Parallel()
	for _, tc := range []struct {
		name    string
		configs []map[string]any
		lose    string // the replicated job whose first pod is deleted
		log     string // what the client's log must say
	}{
		{name: "dask-raise", configs: []map[string]any{{"model": "ridge", "samples": 2000, "features": 20},
			{"model": "svm", "samples": 2000, "features": 20}}, log: "KeyError: 'svm'"},
		{name: "dask-lost-worker", configs: daskLongMap(), lose: daskWorker},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			docs, _ := compileDaskMap(t, tc.configs, nil)
			r, manifest := c.newDaskRun(t, tc.name, docs)
			c.keepJobSet(t, manifest, r.ns)
			created := r.create(t)
			name := c.waitJobSetOfRun(t, r.ns, 3*time.Minute)
			var event time.Time
			from := "its client's exit"
			if tc.lose != "" {
				event = c.loseDaskPod(t, r.ns, name, tc.lose)
				from = "the deletion of its " + tc.lose + "'s pod"
			}
			done := c.wait(t, r.ns, created, 5*time.Minute)
			state, _ := c.jobSetEnd(t, r.ns, name, time.Minute)
			if tc.lose == "" {
				event = c.clientExit(t, r.ns, name)
			}
			took := done.Status.FinishedAt.Sub(event)
			failed := c.failedAt(t, r.ns, name).Sub(event)
			if done.Status.Phase != wfv1.WorkflowFailed || state != string(jobset.JobSetFailed) || took > 90*time.Second {
				t.Fatalf("workflow %s %s %s after %s, JobSet %s %s; want both Failed, within 90s\n%s\n%s\n%s",
					done.Name, done.Status.Phase, took, from, name, state, nodeSummary(done),
					c.jobSetTable(t, r.ns, name), c.jobSetLogs(t, r.ns, name))
			}
			if tc.log != "" {
				if log := c.daskClientLog(t, r.ns, name); !strings.Contains(log, tc.log) {
					t.Errorf("the client's log says no %q:\n%s", tc.log, log)
				}
			}
			cleared := c.checkDaskEnded(t, r.ns, name, state, time.Minute)
			t.Logf("JobSet %s: Failed %s after %s; workflow %s Failed %s after it (step: %q); the rest ended %s "+
				"after the workflow; left until the run goes: %s", name, failed.Round(time.Second), from, done.Name,
				took.Round(time.Second), failedStep(done), cleared.Round(time.Second), c.jobSetLeft(t, r.ns, name))
		})
	}
}

// failedStep is the message of a workflow's failed resource step.
func failedStep(wf *wfv1.Workflow) string {
	for _, n := range wf.Status.Nodes {
		if n.Type == wfv1.NodeTypePod && n.Phase == wfv1.NodeFailed {
			return n.Message
		}
	}
	return ""
}

// waitJobSetOfRun waits until the run in namespace ns has created its
// JobSet, and returns its name.
func (c *cluster) waitJobSetOfRun(t *testing.T, ns string, timeout time.Duration) string {
	t.Helper()
	var name string
	if !waitUntil(timeout, func() bool {
		name = c.must(t, "", "-n", ns, "get", "jobsets.jobset.x-k8s.io", "-o", "jsonpath={.items[*].metadata.name}")
		return name != ""
	}) {
		t.Fatalf("no JobSet in %s after %s\n%s", ns, timeout, c.must(t, "", "-n", ns, "get", "workflows,pods"))
	}
	if strings.Contains(name, " ") {
		t.Fatalf("JobSets in %s: %s, want one", ns, name)
	}
	return name
}

// loseDaskPod deletes the first pod of a Dask JobSet's replicated job rj
// while the client works: once the scheduler's log says the client has
// connected, and the client's pod still runs. It returns when.
func (c *cluster) loseDaskPod(t *testing.T, ns, name, rj string) time.Time {
	t.Helper()
	sel := jobset.JobSetNameKey + "=" + name + "," + jobset.ReplicatedJobNameKey + "="
	if !waitUntil(4*time.Minute, func() bool {
		out, _ := c.run("", "-n", ns, "logs", "-l", sel+daskScheduler, "-c", daskScheduler, "--tail=-1")
		return strings.Contains(out, "Receive client connection")
	}) {
		t.Fatalf("the scheduler's log has no client's connection\n%s\n%s", c.jobSetTable(t, ns, name),
			c.jobSetLogs(t, ns, name))
	}
	if phase := c.must(t, "", "-n", ns, "get", "pods", "-l", sel+daskClient, "-o",
		"jsonpath={.items[*].status.phase}"); phase != "Running" {
		t.Fatalf("the client's pod is %q once it connected, not Running: the map is too short", phase)
	}
	pod := strings.TrimSpace(c.must(t, "", "-n", ns, "get", "pods", "-l",
		sel+rj+",batch.kubernetes.io/job-completion-index=0", "-o", "name"))
	at := time.Now()
	c.must(t, "", "-n", ns, "delete", pod, "--wait=false")
	t.Logf("deleted %s while the client works", pod)
	return at
}

// daskQueue is the LocalQueue the queued dask-map's platform names.
const daskQueue = "dask-jobsets"

// daskClusterRequests is what a Dask JobSet's pods ask in all (manifest,
// as created): each replicated job's parallelism times its containers'
// requests.
func daskClusterRequests(t *testing.T, manifest string) corev1.ResourceList {
	t.Helper()
	total := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("0"),
		corev1.ResourceMemory: resource.MustParse("0")}
	for _, rj := range decodeJobSet(t, manifest).Spec.ReplicatedJobs {
		n := int64(rj.Replicas) * int64(*rj.Template.Spec.Parallelism)
		for _, ctr := range rj.Template.Spec.Template.Spec.Containers {
			for k, v := range ctr.Resources.Requests {
				sum := total[k]
				for range n {
					sum.Add(v)
				}
				total[k] = sum
			}
		}
	}
	return total
}

// daskQueues makes Kueue manage namespaces, each with the LocalQueue
// daskQueue of one ClusterQueue whose quota is quota.
func (c *cluster) daskQueues(t *testing.T, quota corev1.ResourceList, namespaces ...string) {
	t.Helper()
	cpu, mem := quota[corev1.ResourceCPU], quota[corev1.ResourceMemory]
	c.ensure(t, "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: e2e-default}\n")
	c.must(t, fmt.Sprintf(`apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: %s}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu, memory]
    flavors:
    - name: e2e-default
      resources:
      - {name: cpu, nominalQuota: %q}
      - {name: memory, nominalQuota: %q}
`, daskQueue, cpu.String(), mem.String()), "apply", "-f", "-")
	for _, ns := range namespaces {
		c.must(t, "", "label", "namespace", ns, kueueLabel+"=true", "--overwrite")
		c.ensure(t, fmt.Sprintf("apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\n"+
			"metadata: {name: %s, namespace: %s}\nspec: {clusterQueue: %s}\n", daskQueue, ns, daskQueue))
	}
}

// daskWorkload is what the Kueue test reads of a JobSet's Workload: its
// pod sets, and those its admission assigned.
type daskWorkload struct {
	Spec struct {
		PodSets []struct {
			Name  string
			Count int
		}
	}
	Status struct {
		Admission *struct {
			PodSetAssignments []struct {
				Name  string
				Count int
			}
		}
	}
}

// podSets lists a Workload's pod sets (or its admission's) as name=count.
func (w daskWorkload) podSets(admitted bool) string {
	var out []string
	if !admitted {
		for _, p := range w.Spec.PodSets {
			out = append(out, fmt.Sprintf("%s=%d", p.Name, p.Count))
		}
	} else if w.Status.Admission != nil {
		for _, p := range w.Status.Admission.PodSetAssignments {
			out = append(out, fmt.Sprintf("%s=%d", p.Name, p.Count))
		}
	}
	return strings.Join(out, ",")
}

// TestE2EKueueAdmitsDaskJobSetsWhole queues two runs of dask-map, compiled
// with the platform's queue, in a ClusterQueue whose quota holds one Dask
// cluster (the scheduler, two workers and the client, as
// daskJobSetOnRealNode shrinks their requests) and not two. The first
// JobSet is admitted whole and runs; the second must stay suspended,
// with no pod at all (never a scheduler without its workers), until the
// first has finished, then be admitted whole, its three pod sets in one
// Workload, and complete; both runs succeed, each with its table.
func TestE2EKueueAdmitsDaskJobSetsWhole(t *testing.T) {
	c := e2eCluster(t)
	needDaskExample(t)
	t.Parallel()
	docs, configs := compileDaskMap(t, nil, map[string]any{"queue": daskQueue})
	compiled := decodeJobSet(t, *argoCreated(t, decodeWorkflow(t, docs[len(docs)-1]), "JobSet"))
	if !ptr.Deref(compiled.Spec.Suspend, false) || compiled.Labels[kueueQueueLabel] != daskQueue {
		t.Fatalf("the queued JobSet: suspend %v, labels %v; want suspended, in queue %s", compiled.Spec.Suspend,
			compiled.Labels, daskQueue)
	}
	var runs []*realRun
	var manifests []*string
	for _, name := range []string{"dask-queue-a", "dask-queue-b"} {
		r, manifest := c.newDaskRun(t, name, docs)
		if kueueStripLabel {
			*manifest = editJob(t, *manifest, func(js map[string]any) {
				delete(js["metadata"].(map[string]any)["labels"].(map[string]any), kueueQueueLabel)
			})
		}
		runs, manifests = append(runs, r), append(manifests, manifest)
	}
	// The quota: one cluster's requests and half as much again.
	one := daskClusterRequests(t, *manifests[0])
	quota := corev1.ResourceList{
		corev1.ResourceCPU:    *resource.NewMilliQuantity(one.Cpu().MilliValue()*3/2, resource.DecimalSI),
		corev1.ResourceMemory: *resource.NewQuantity(one.Memory().Value()*3/2, resource.BinarySI),
	}
	c.daskQueues(t, quota, runs[0].ns, runs[1].ns)
	var tl timeline
	a, b := runs[0], runs[1]
	createdA := a.create(t)
	jsA := c.waitJobSetOfRun(t, a.ns, 2*time.Minute)
	firstA := c.firstPod(t, a.ns, jsA, 2*time.Minute)
	createdB := b.create(t)
	jsB := c.waitJobSetOfRun(t, b.ns, 2*time.Minute)
	// While the first runs, the second is suspended, and has no pods;
	// its Jobs, if any, are suspended too.
	seen := 0
	for deadline := time.Now().Add(5 * time.Minute); c.jobSetState(t, a.ns, jsA) == ""; {
		if time.Now().After(deadline) {
			t.Fatalf("JobSet %s has not ended in 5m\n%s", jsA, c.jobSetTable(t, a.ns, jsA))
		}
		if s := c.jobSetSuspended(t, b.ns, jsB); s != "true" {
			t.Fatalf("JobSet %s: suspend %q while %s runs\n%s", jsB, s, jsA, c.jobSetTable(t, b.ns, jsB))
		}
		if objs := c.jobSetRunning(t, b.ns, jsB); slices.ContainsFunc(objs, func(o string) bool {
			return strings.HasPrefix(o, "pod/")
		}) {
			t.Fatalf("JobSet %s is suspended, and has pods: %v", jsB, objs)
		}
		if jobs := c.must(t, "", "-n", b.ns, "get", "jobs", "-l", jobset.JobSetNameKey+"="+jsB, "-o",
			"jsonpath={.items[*].spec.suspend}"); strings.Contains(jobs, "false") {
			t.Fatalf("JobSet %s is suspended, and has Jobs that are not: %s", jsB, jobs)
		}
		seen++
		time.Sleep(time.Second)
	}
	if state := c.jobSetState(t, a.ns, jsA); state != "Completed" {
		// Its pods' logs and the namespace's events, before the run's
		// exit handler deletes the set.
		events, _ := c.run("", "-n", a.ns, "get", "events", "--sort-by=.lastTimestamp")
		t.Fatalf("JobSet %s ended %s\n%s\n%s\n%s", jsA, state, c.jobSetTable(t, a.ns, jsA), c.jobSetLogs(t, a.ns, jsA),
			events)
	}
	t.Logf("JobSet %s: suspended with no pods, seen %d times while %s ran", jsB, seen, jsA)
	firstB := c.firstPod(t, b.ns, jsB, 2*time.Minute)
	for i, r := range runs {
		done := c.wait(t, r.ns, []string{createdA, createdB}[i], 6*time.Minute)
		if done.Status.Phase != wfv1.WorkflowSucceeded {
			t.Fatalf("%s: %s: %s\n%s", r.ns, done.Status.Phase, done.Status.Message, nodeSummary(done))
		}
	}
	var finished time.Time
	for i, r := range runs {
		js := []string{jsA, jsB}[i]
		c.checkCompiledDask(t, r, *argoCreated(t, r.golden, "JobSet"), configs)
		w, ok := c.workloads(t, r.ns)["JobSet/"+js]
		if !ok {
			t.Fatalf("JobSet %s has no Workload", js)
		}
		var full daskWorkload
		c.getJSON(t, &full, "-n", r.ns, "get", "workloads.kueue.x-k8s.io", w.Metadata.Name)
		if got := full.podSets(true); got != "scheduler=1,worker=2,client=1" {
			t.Errorf("Workload %s admitted pod sets %q, want scheduler=1,worker=2,client=1 (pod sets %s)",
				w.Metadata.Name, got, full.podSets(false))
		}
		admitted := w.at("Admitted")
		if i == 1 && admitted.Before(finished) {
			t.Errorf("Workload %s admitted at %s, before the first's finished at %s", w.Metadata.Name,
				admitted.Format(time.TimeOnly), finished.Format(time.TimeOnly))
		}
		finished = w.at("Finished")
		first := []time.Time{firstA, firstB}[i]
		if first.Before(admitted) {
			t.Errorf("JobSet %s's first pod at %s, before its admission at %s", js, first.Format(time.TimeOnly),
				admitted.Format(time.TimeOnly))
		}
		tl.add(c.timeAt(t, r.ns, "jobsets.jobset.x-k8s.io/"+js, "{.metadata.creationTimestamp}"),
			"JobSet %s created, suspended (Workload %s: %s)", js, w.Metadata.Name, full.podSets(false))
		tl.add(admitted, "%s admitted whole (%s), resumed", js, full.podSets(true))
		tl.add(first, "%s: its first pod", js)
		tl.add(c.timeAt(t, r.ns, "jobsets.jobset.x-k8s.io/"+js,
			`{.status.conditions[?(@.type=="Completed")].lastTransitionTime}`), "%s Completed", js)
		tl.add(finished, "%s: its Workload Finished, its quota freed", js)
	}
	t.Logf("ClusterQueue %s: quota cpu %s memory %s; one Dask cluster asks cpu %s memory %s:\n%s", daskQueue,
		quota.Cpu(), quota.Memory(), one.Cpu(), one.Memory(), tl)
}

// jobSetSuspended is a JobSet's spec.suspend ("" when unset).
func (c *cluster) jobSetSuspended(t *testing.T, ns, name string) string {
	t.Helper()
	return c.jsonPath(t, ns, "jobsets.jobset.x-k8s.io/"+name, "{.spec.suspend}")
}

// firstPod waits until a JobSet has pods (the scheduler's first), and
// returns when the first was created.
func (c *cluster) firstPod(t *testing.T, ns, name string, timeout time.Duration) time.Time {
	t.Helper()
	var first time.Time
	if !waitUntil(timeout, func() bool {
		var pods corev1.PodList
		c.getJSON(t, &pods, "-n", ns, "get", "pods", "-l", jobset.JobSetNameKey+"="+name)
		for _, p := range pods.Items {
			if at := p.CreationTimestamp.Time; first.IsZero() || at.Before(first) {
				first = at
			}
		}
		return !first.IsZero()
	}) {
		t.Fatalf("JobSet %s has no pods after %s\n%s", name, timeout, c.must(t, "", "-n", ns, "get",
			"workloads.kueue.x-k8s.io,jobsets.jobset.x-k8s.io,jobs,pods"))
	}
	return first
}
