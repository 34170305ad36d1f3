//go:build e2e

package e2e

import (
	"strings"
	"testing"
	"time"
)

// TestE2ETorchStopDeletesTrainJob stops torch-ddp's Workflow on the real
// node (spec.shutdown: Stop, as `argo stop` does) while its TrainJob's
// nodes run, each held by a sleep in place of torchrun: the wait
// script's trap, the owner reference to its pod and the exit handler
// must leave neither the TrainJob nor its JobSet (Trainer owns the JobSet
// by the TrainJob, pkg/runtime/framework/plugins/jobset, v2.3.0) nor a
// node pod, whose GPUs would stay held.
func TestE2ETorchStopDeletesTrainJob(t *testing.T) {
	c := e2eCluster(t)
	needTorchExample(t, "argo")
	t.Parallel()
	r := c.realRunOf(t, torchExample, "torch-stop")
	manifest := argoCreated(t, r.wf, "TrainJob")
	*manifest = editJob(t, trainJobOnRealNode(t, *manifest, r.ns), func(job map[string]any) {
		tr := job["spec"].(map[string]any)["trainer"].(map[string]any)
		tr["command"], tr["args"] = []string{"sleep", "3600"}, []string{}
	})
	created := r.create(t)
	name := strings.TrimPrefix(created, "workflow.argoproj.io/")
	nodes := waitFor(t, 5*time.Minute, func() string {
		out, _ := c.run("", "-n", r.ns, "get", "pods", "-l", "jobset.sigs.k8s.io/replicatedjob-name=node", "-o",
			"jsonpath={.items[*].status.phase}")
		return out
	}, "Running Running")
	jobs := strings.TrimSpace(c.must(t, "", "-n", r.ns, "get", "trainjobs,jobsets", "-o", "name"))
	t.Logf("%s: nodes %s of %s; stopping", name, nodes, strings.ReplaceAll(jobs, "\n", ", "))
	c.must(t, `{"spec":{"shutdown":"Stop"}}`, "-n", r.ns, "patch", created, "--type=merge", "--patch-file=/dev/stdin")
	done := c.wait(t, r.ns, created, 3*time.Minute)
	left := waitFor(t, 2*time.Minute, func() string {
		// The namespace is the test's own: every TrainJob and JobSet in it
		// is the run's.
		out, _ := c.run("", "-n", r.ns, "get", "trainjobs,jobsets", "-o", "name")
		pods, _ := c.run("", "-n", r.ns, "get", "pods", "-l", "jobset.sigs.k8s.io/replicatedjob-name=node", "-o", "name")
		if s := strings.TrimSpace(out + pods); s != "" {
			return s
		}
		return "none"
	}, "none")
	t.Logf("%s: %s (%s); TrainJobs, JobSets and node pods of the run left: %s", name, done.Status.Phase,
		done.Status.Message, left)
}
