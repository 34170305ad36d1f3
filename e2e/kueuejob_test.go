//go:build e2e

package e2e

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// queuedKind is how the Kueue test finds its way around one kind of
// workload that Kueue admits as a whole.
type queuedKind struct {
	kind      string   // as in a Workload's owner reference
	resource  string   // for kubectl
	suspend   string   // the jsonpath of spec's suspend
	done      string   // the condition type that ends it well
	podSpec   []string // the path to the pod template to hold
	heldPod   string   // the label selector of the held pods, %s the name
	pods      int      // how many pods one workload runs (0: one)
	gpus      int      // the ClusterQueue's GPUs: one workload's worth
	queueName string
}

// TestE2EKueueAdmitsOneAtATime creates two copies of a queued Job
// (--backend job) and of a queued MPIJob (from an Argo resource step) in a
// namespace whose ClusterQueue holds the GPUs of one copy at a time. Both
// copies start suspended; Kueue admits the first, which runs (KWOK keeps
// its pod running until the test lets it finish) while the second stays
// suspended; when the first finishes, Kueue admits the second, which runs
// to the end. The log shows the admission timeline. Without the queue
// label (E2E_KUEUE_STRIP_LABEL=1) nothing is ever admitted, and it fails.
func TestE2EKueueAdmitsOneAtATime(t *testing.T) {
	c := e2eCluster(t)
	job := queuedKind{kind: "Job", resource: "jobs.batch", suspend: "{.spec.suspend}", done: "Complete",
		podSpec: []string{"spec", "template"}, heldPod: "batch.kubernetes.io/job-name=%s", gpus: 1, queueName: "team-a-gpu"}
	mpi := queuedKind{kind: "MPIJob", resource: "mpijobs.kubeflow.org", suspend: "{.spec.runPolicy.suspend}",
		done: "Succeeded", podSpec: []string{"spec", "mpiReplicaSpecs", "Launcher", "template"},
		heldPod: "training.kubeflow.org/job-name=%s,training.kubeflow.org/job-role=launcher", gpus: 2,
		queueName: "team-a-gpu-large"}
	t.Run("job", func(t *testing.T) {
		t.Parallel()
		out, stderr, code := compileArgs(t, "mlcube-compile", "--backend", "job", "--mlcube", sharedGPUQueue(t),
			"--task", "finetune")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		c.admitsOneAtATime(t, job, out)
	})
	t.Run("mpijob", func(t *testing.T) {
		t.Parallel()
		c.admitsOneAtATime(t, mpi, sharedGPUQueueMPIJob(t))
	})
}

// sharedGPUQueueMPIJob is the MPIJob of examples/shared-gpu-queue's
// train step, as Argo's resource step creates it.
func sharedGPUQueueMPIJob(t *testing.T) string {
	t.Helper()
	docs := goldenDocuments(t, filepath.Join(repoRoot, "testdata", "golden", "argo", "shared-gpu-queue.yaml"))
	wf := decodeWorkflow(t, docs[len(docs)-1])
	for _, tmpl := range wf.Spec.Templates {
		if res := tmpl.Resource; res != nil && res.Action == "create" && strings.Contains(res.Manifest, "kind: MPIJob") {
			return asSubmitted(res.Manifest)
		}
	}
	t.Fatal("no MPIJob in shared-gpu-queue's workflow")
	return ""
}

// admitsOneAtATime runs the two copies of manifest, as the test says.
func (c *cluster) admitsOneAtATime(t *testing.T, k queuedKind, manifest string) {
	t.Helper()
	ns := "e2e-kueue-" + strings.ToLower(k.kind)
	c.kueueQueues(t, ns, k.gpus, k.queueName)
	c.ensure(t, "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: team-a-runner, namespace: "+ns+"}\n")
	c.fakeNode(t, "kwok-kueue", map[string]string{})
	first, second := "first", "second"
	for _, name := range []string{first, second} {
		c.must(t, "", "-n", ns, "delete", k.resource, name, "--ignore-not-found", "--wait")
		// What create prints is the object as stored, before Kueue can
		// admit it.
		got := c.must(t, queued(t, manifest, ns, name, name == first, k.podSpec...), "create", "-o",
			"jsonpath="+k.suspend, "-f", "-")
		if got != "true" {
			t.Fatalf("%s %s created with suspend %q, want true", k.kind, name, got)
		}
	}
	var tl timeline
	c.admitted(t, ns, k, first, &tl)
	held := strings.Fields(waitForAny(t, 2*time.Minute, func() string {
		out, _ := c.run("", "-n", ns, "get", "pods", "-l", strings.ReplaceAll(k.heldPod, "%s", first),
			"--field-selector=status.phase=Running", "-o", "jsonpath={.items[*].metadata.name}")
		if len(strings.Fields(out)) < max(k.pods, 1) {
			return ""
		}
		return out
	}))
	tl.add(time.Now(), "%s %s: its pods %s run, and the quota is used", k.kind, first, strings.Join(held, ", "))
	time.Sleep(5 * time.Second)
	if got := c.jsonPath(t, ns, k.resource+"/"+second, k.suspend); got != "true" {
		t.Fatalf("%s %s has suspend %q while %s holds the quota, want true", k.kind, second, got, first)
	}
	if w := c.workloads(t, ns)[k.kind+"/"+second]; !w.at("QuotaReserved").IsZero() {
		t.Fatalf("%s %s was given quota while %s holds it", k.kind, second, first)
	}
	tl.add(time.Now(), "%s %s: still suspended, its Workload pending", k.kind, second)
	c.must(t, "", append(append([]string{"-n", ns, "annotate", "pod"}, held...), "e2e.mlcube-compile.io/hold-")...)
	firstDone := c.finished(t, ns, k, first, &tl)
	if secondAdmitted := c.admitted(t, ns, k, second, &tl); secondAdmitted.Before(firstDone) {
		t.Errorf("%s admitted at %s, before %s finished at %s", second, secondAdmitted, first, firstDone)
	}
	c.finished(t, ns, k, second, &tl)
	t.Logf("%s in LocalQueue %s, ClusterQueue %s with %d GPUs:\n%s", k.kind, k.queueName, ns, k.gpus, tl)
}

// admitted waits until Kueue admits name and it is unsuspended, and
// returns when it was admitted.
func (c *cluster) admitted(t *testing.T, ns string, k queuedKind, name string, tl *timeline) time.Time {
	t.Helper()
	created := c.jsonPath(t, ns, k.resource+"/"+name, "{.metadata.creationTimestamp}")
	if at, err := time.Parse(time.RFC3339, created); err == nil {
		tl.add(at, "%s %s created, suspended", k.kind, name)
	}
	waitFor(t, 2*time.Minute, func() string { return c.jsonPath(t, ns, k.resource+"/"+name, k.suspend) }, "false")
	w := c.workloads(t, ns)[k.kind+"/"+name]
	tl.add(w.at("Admitted"), "%s %s admitted by Kueue (Workload %s), unsuspended", k.kind, name, w.Metadata.Name)
	return w.at("Admitted")
}

// finished waits until name ends well, and returns when its Workload
// finished.
func (c *cluster) finished(t *testing.T, ns string, k queuedKind, name string, tl *timeline) time.Time {
	t.Helper()
	waitFor(t, 3*time.Minute, func() string {
		return c.jsonPath(t, ns, k.resource+"/"+name, `{.status.conditions[?(@.type=="`+k.done+`")].status}`)
	}, "True")
	var at time.Time
	waitFor(t, time.Minute, func() string {
		at = c.workloads(t, ns)[k.kind+"/"+name].at("Finished")
		return map[bool]string{true: "finished", false: "not yet"}[!at.IsZero()]
	}, "finished")
	tl.add(at, "%s %s %s; its Workload finished, its quota free", k.kind, name, k.done)
	return at
}

// waitForAny polls get until it returns something, failing after timeout.
func waitForAny(t *testing.T, timeout time.Duration, get func() string) string {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		if got := get(); got != "" {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("nothing after %s", timeout)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// jsonPath reads one field of an object.
func (c *cluster) jsonPath(t *testing.T, ns, obj, path string) string {
	t.Helper()
	return strings.TrimSpace(c.must(t, "", "-n", ns, "get", obj, "-o", "jsonpath="+path))
}
