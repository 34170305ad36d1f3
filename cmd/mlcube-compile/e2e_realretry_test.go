//go:build e2e

package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
)

// TestE2ERealNodeRetriesADeletedPod deletes the running pod of train of
// single-gpu-task at once (--grace-period=0 --force), as the pod
// garbage collector does to the pods of a lost node: Argo marks that
// attempt Error ("pod deleted"). (A graceful delete, as in a drain or
// Kueue's preemption, may instead let the executor report the container's
// exit code 143 first, and the attempt is Failed.) Its default retry policy,
// OnFailure, does not retry a node in Error (processNodeRetries in
// workflow/controller/operator.go), so the control run, submitted with
// that policy, fails. With the policy the compiler emits, Always, train
// runs again and the run succeeds.
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
			r.c.must(t, "", "-n", r.ns, "delete", "pod", pod, "--grace-period=0", "--force", "--wait=false")
			done := r.c.wait(t, r.ns, created, 5*time.Minute)
			attempts := retryAttempts(done, target)
			if len(attempts) == 0 || attempts[0].Phase != wfv1.NodeError || !strings.Contains(attempts[0].Message, "deleted") {
				t.Fatalf("the first attempt of %s is not in Error, pod deleted\n%s", target, nodeSummary(done))
			}
			want, wantAttempts := wfv1.WorkflowSucceeded, 2
			if tc.control {
				want, wantAttempts = wfv1.WorkflowFailed, 1
			}
			if done.Status.Phase != want && !(tc.control && done.Status.Phase == wfv1.WorkflowError) || len(attempts) != wantAttempts {
				t.Fatalf("phase %s with %d attempts of %s, want %s after %d\n%s", done.Status.Phase, len(attempts), target, want, wantAttempts, nodeSummary(done))
			}
			t.Logf("%s: %s; %s's pod %s deleted while it ran, its attempt %s (%q); %d attempts", done.Name, done.Status.Phase, target, pod, attempts[0].Phase, attempts[0].Message, len(attempts))
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
