//go:build e2e

package main

import (
	"strings"
	"testing"
	"time"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
)

// TestE2ERealNodeRetriesADeletedPod deletes the running pod of train of
// two-cube-pipeline, as a drain, a lost node or Kueue's preemption does:
// Argo marks that attempt Error ("pod deleted"), which its default retry
// policy (OnFailure) does not retry (processNodeRetries in
// workflow/controller/operator.go), so the run failed. With the retry
// policy the compiler emits (Always), train runs again and the run
// succeeds.
func TestE2ERealNodeRetriesADeletedPod(t *testing.T) {
	c := e2eCluster(t)
	t.Parallel()
	r := c.realRunOf(t, "two-cube-pipeline", "deleted")
	const target = "train"
	if s := r.golden.GetTemplateByName(target).RetryStrategy; s == nil || s.RetryPolicy != wfv1.RetryPolicyAlways {
		t.Fatalf("%s's retry strategy in the golden file is %+v, want the policy Always", target, s)
	}
	r.setEnv(t, target, "MLCUBE_E2E_SLEEP", "20")
	r.shortBackoff(t, target)
	created := r.create(t)
	pod := r.runningPod(t, target, 5*time.Minute)
	r.c.must(t, "", "-n", r.ns, "delete", "pod", pod, "--wait=false")
	done := r.c.wait(t, r.ns, created, 5*time.Minute)
	attempts := retryAttempts(done, target)
	if done.Status.Phase != wfv1.WorkflowSucceeded || len(attempts) != 2 {
		t.Fatalf("phase %s with %d attempts of %s, want Succeeded after 2\n%s", done.Status.Phase, len(attempts), target, nodeSummary(done))
	}
	if first := attempts[0]; first.Phase != wfv1.NodeError || !strings.Contains(first.Message, "deleted") {
		t.Errorf("the first attempt: %s %q, want Error, pod deleted", first.Phase, first.Message)
	}
	if second := attempts[1]; second.Phase != wfv1.NodeSucceeded {
		t.Errorf("the second attempt: %s %q, want Succeeded", second.Phase, second.Message)
	}
	t.Logf("%s: %s; %s's pod %s deleted while it ran, the attempt %s (%q), and train retried", done.Name, done.Status.Phase, target, pod, attempts[0].Phase, attempts[0].Message)
}
