//go:build e2e

package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
)

// TestE2ERealNodeRetriesADeletedPod deletes the running pod of train of
// single-gpu-task at once (--grace-period=0 --force), as the pod garbage
// collector does to the pods of a lost node, and the step must run again
// and the run succeed. Argo marks the node Error ("pod deleted",
// podReconciliation in workflow/controller/operator.go). Its default
// retry policy, OnFailure, does not retry a node in Error
// (processNodeRetries): the run then ends in Error. Sometimes, seen on
// v3.7.18 and v4.0.7 alike, the controller instead submits the node's pod
// again in the same pass (executeContainer creates any pod it finds
// missing), and the node succeeds without a retry. So the control run,
// with OnFailure, ends either way and only says which; the compiled run,
// with Always, must succeed: by a second attempt when the Error stays, or
// by the pod submitted again.
func TestE2ERealNodeRetriesADeletedPod(t *testing.T) {
	c := e2eCluster(t)
	t.Parallel()
	const target = "train"
	for _, tc := range []struct {
		name    string
		control bool
	}{{"deleted", false}, {"deleted-control", true}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := c.realRunOf(t, "single-gpu-task", tc.name)
			if s := r.golden.GetTemplateByName(target).RetryStrategy; s == nil || s.RetryPolicy != wfv1.RetryPolicyAlways {
				t.Fatalf("%s's retry strategy in the golden file is %+v, want the policy Always", target, s)
			}
			r.setEnv(t, target, "MLCUBE_E2E_SLEEP", "40")
			r.shortBackoff(t, target)
			if tc.control {
				r.template(t, target).RetryStrategy.RetryPolicy = ""
			}
			created := r.create(t)
			pod := r.runningPod(t, target, 5*time.Minute)
			r.nodeSettled(t, created, target+"(0)")
			uid := r.c.must(t, "", "-n", r.ns, "get", "pod", pod, "-o", "jsonpath={.metadata.uid}")
			r.c.must(t, "", "-n", r.ns, "delete", "pod", pod, "--grace-period=0", "--force", "--wait=false")
			done := r.c.wait(t, r.ns, created, 5*time.Minute)
			attempts := retryAttempts(done, target)
			again, _ := r.c.run("", "-n", r.ns, "get", "pod", pod, "-o", "jsonpath={.metadata.uid}")
			how := "the pod submitted again"
			switch {
			case len(attempts) == 2 && attempts[0].Phase == wfv1.NodeError && strings.Contains(attempts[0].Message, "deleted"):
				how = "a second attempt after Error (" + attempts[0].Message + ")"
			case len(attempts) == 1 && again != "" && again != uid:
			case tc.control && len(attempts) == 1 && attempts[0].Phase == wfv1.NodeError:
				how = "no retry of its Error (" + attempts[0].Message + ")"
			default:
				t.Fatalf("after the pod was deleted: phase %s, %d attempts, the pod's uid %q then %q\n%s", done.Status.Phase,
					len(attempts), uid, again, nodeSummary(done))
			}
			if !tc.control && done.Status.Phase != wfv1.WorkflowSucceeded {
				t.Fatalf("phase %s, want Succeeded (%s)\n%s", done.Status.Phase, how, nodeSummary(done))
			}
			t.Logf("%s: %s by %s; %s's pod %s was deleted while it ran", done.Name, done.Status.Phase, how, target, pod)
		})
	}
}

// nodeSettled waits until the workflow's node is Running and started more
// than 10 seconds ago. Before that, Argo's controller takes a missing pod
// for one it has yet to see or to create again (podReconciliation in
// workflow/controller/operator.go: a Pending node's pod is submitted again,
// a recently started one waits for the informer), not for a deleted one.
func (r *realRun) nodeSettled(t *testing.T, created, node string) {
	t.Helper()
	for deadline := time.Now().Add(3 * time.Minute); time.Now().Before(deadline); time.Sleep(time.Second) {
		var wf wfv1.Workflow
		if err := json.Unmarshal([]byte(r.c.must(t, "", "-n", r.ns, "get", created, "-o", "json")), &wf); err != nil {
			t.Fatal(err)
		}
		for _, n := range wf.Status.Nodes {
			if n.DisplayName == node && n.Phase == wfv1.NodeRunning && time.Since(n.StartedAt.Time) > 11*time.Second {
				return
			}
		}
	}
	t.Fatalf("node %s never settled into Running", node)
}
