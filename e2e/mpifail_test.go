//go:build e2e

package e2e

import (
	"strings"
	"testing"
	"time"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// failingWorkers is an MPIJob manifest whose workers cannot start, as
// workers whose SSH server is missing: the runtime cannot run their
// command, so each container ends in StartError and its pod (restartPolicy
// Never) is Failed without ever being Ready. (A worker that exits at once
// may be Ready for an instant first, and mpi-operator then creates the
// launcher, seen on the real node: that run fails by the launcher.)
func failingWorkers(t *testing.T, manifest string) string {
	t.Helper()
	return editJob(t, manifest, func(job map[string]any) {
		replicaContainer(job, "Worker")["command"] = []any{"/nonexistent/sshd"}
	})
}

// TestE2EMPIFailedWorkerEndsTheRun runs resnet50-multinode on the real node
// with workers that cannot start. With the launcher created only once every
// worker is Ready (WaitForWorkersReady), mpi-operator counts the failed
// workers in status.replicaStatuses.Worker.failed and sets no condition,
// so a step that waited for the launcher alone would wait for ever with
// its GPUs held: the control run, on the launcher's failure condition
// alone, is still running after two minutes. The compiled run fails, on
// Argo by the workers' failure condition and on Tekton by the wait
// script's count, and no MPIJob is left.
func TestE2EMPIFailedWorkerEndsTheRun(t *testing.T) {
	c := e2eCluster(t)
	t.Parallel()
	const example = "resnet50-multinode"
	for _, tc := range []struct {
		name    string
		control bool
	}{{"mpi-worker-fails", false}, {"mpi-worker-fails-control", true}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := c.realRunOf(t, example, tc.name)
			r.pinJobs(t)
			for i := range r.wf.Spec.Templates {
				tmpl := &r.wf.Spec.Templates[i]
				if rs := tmpl.RetryStrategy; rs != nil {
					none := intstr.FromInt(0)
					rs.Limit = &none
				}
				if res := tmpl.Resource; res != nil && res.Action == "create" && strings.Contains(res.Manifest, `"MPIJob"`) {
					res.Manifest = failingWorkers(t, res.Manifest)
					if !strings.Contains(res.FailureCondition, "status.replicaStatuses.Worker.failed > 0") {
						t.Fatalf("the failure condition %q does not read the workers", res.FailureCondition)
					}
					if tc.control {
						res.FailureCondition = "status.replicaStatuses.Launcher.failed > 0"
					}
				}
			}
			created := r.create(t)
			if tc.control {
				time.Sleep(2 * time.Minute)
				if phase := c.must(t, "", "-n", r.ns, "get", created, "-o",
					"jsonpath={.status.phase}"); phase != string(wfv1.WorkflowRunning) {
					t.Fatalf("control: the run is %s two minutes on, want still Running", phase)
				}
				failed := strings.TrimSpace(c.must(t, "", "-n", r.ns, "get", "mpijobs", "-o",
					"jsonpath={.items[*].status.replicaStatuses.Worker.failed}"))
				c.must(t, "", "-n", r.ns, "patch", created, "--type=merge", "-p", `{"spec":{"shutdown":"Terminate"}}`)
				if failed == "" || failed == "0" {
					t.Fatalf("control: no worker of the MPIJob failed (%q): the control shows nothing", failed)
				}
				t.Logf("control: %s still Running after two minutes with %s workers failed", created, failed)
				return
			}
			done := c.wait(t, r.ns, created, 4*time.Minute)
			if done.Status.Phase != wfv1.WorkflowFailed {
				t.Fatalf("phase %s, want Failed\n%s", done.Status.Phase, nodeSummary(done))
			}
			left := waitUntil(time.Minute,
				func() bool { return strings.TrimSpace(c.must(t, "", "-n", r.ns, "get", "mpijobs", "-o", "name")) == "" })
			if !left {
				t.Errorf("MPIJobs left: %s", c.must(t, "", "-n", r.ns, "get", "mpijobs"))
			}
			t.Logf("%s: Failed in %s with its workers failed; no MPIJob left", done.Name,
				done.Status.FinishedAt.Sub(done.Status.StartedAt.Time))
		})
	}
}

// TestE2ETektonMPIFailedWorkerEndsTheRun is the same on Tekton: the wait
// script reads the workers' failure count and fails the step.
func TestE2ETektonMPIFailedWorkerEndsTheRun(t *testing.T) {
	c := e2eCluster(t)
	t.Parallel()
	r := c.tektonRunOf(t, "resnet50-multinode", "mpi-worker-fails")
	r.pr.Spec.PipelineSpec.Tasks[0].Retries = 0
	manifest := tektonJobManifest(t, r.pr)
	*manifest = failingWorkers(t, pinnedJob(t, *manifest, r.ns))
	done := r.run(t, 4*time.Minute)
	cond := done.Status.GetCondition("Succeeded")
	if cond == nil || cond.Status != corev1.ConditionFalse {
		t.Fatalf("PipelineRun %s: %+v, want failed\n%s", done.Name, cond,
			c.must(t, "", "-n", r.ns, "get", "taskruns,mpijobs,pods"))
	}
	if !waitUntil(time.Minute,
		func() bool { return strings.TrimSpace(c.must(t, "", "-n", r.ns, "get", "mpijobs", "-o", "name")) == "" }) {
		t.Errorf("MPIJobs left: %s", c.must(t, "", "-n", r.ns, "get", "mpijobs"))
	}
	t.Logf("%s: %s (%s); no MPIJob left", done.Name, cond.Reason, cond.Message)
}
