package argo_test

import (
	"testing"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	argoexpr3 "github.com/argoproj/argo-workflows/v3/util/expr/argoexpr"
	env3 "github.com/argoproj/argo-workflows/v3/util/expr/env"
	argoexpr4 "github.com/argoproj/argo-workflows/v4/util/expr/argoexpr"
	env4 "github.com/argoproj/argo-workflows/v4/util/expr/env"

	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/internal/enginetest"
	"github.com/mlcube-compile/mlcube-compile/internal/manifestcheck"
)

// Kueue preempts a queued pod by deleting it (Pod.Stop,
// pkg/controller/jobs/pod/pod_controller.go, sigs.k8s.io/kueue v0.19.2):
// examples/shared-gpu-queue's finetune, queued without retries: of its
// own, is tried again when its pod is deleted or killed under it, and
// not when its program fails; prepare, outside the queue, is not.
func TestQueuedStepRetriedOnPreemption(t *testing.T) {
	wf := workflow(t, build(t, manifestcheck.Specs(enginetest.Example(t, "shared-gpu-queue")), emit.Options{}))
	if r := templateNamed(t, wf, "prepare").RetryStrategy; r != nil {
		t.Errorf("prepare runs outside the queue, and is retried: %+v", r)
	}
	r := templateNamed(t, wf, "finetune").RetryStrategy
	if r == nil || r.Limit == nil || r.Limit.IntValue() != 3 || r.RetryPolicy != wfv1.RetryPolicyAlways {
		t.Fatalf("finetune's retryStrategy: %+v, want 3 tries more, policy Always", r)
	}
	// The last try as processNodeRetries sees it: its phase, the main
	// container's exit code, and the node's message (inferFailedReason,
	// podReconciliation; workflow/controller/operator.go, v3.7.18, v4.0.7).
	for _, c := range []struct {
		status, exitCode, message string
		want                      bool
	}{
		{"Error", "-1", "pod deleted", true},
		{"Failed", "143", "main: Error (exit code 143)", true},
		{"Failed", "137", "main: Error (exit code 137)", true},
		{"Failed", "-1", "run: Error (exit code 143)", true},
		{"Failed", "143", "main: Error (exit code 143): terminated", true},
		{"Error", "-1", "Pod failed before main container starts due to PodInitializing: ", true},
		{"Failed", "1", "main: Error (exit code 1)", false},
		{"Failed", "-1", "run: Error (exit code 1)", false},
		{"Failed", "137", "main: OOMKilled (exit code 137)", false},
		{"Failed", "143", "Pod was active on the node longer than the specified deadline", false},
	} {
		scope := map[string]any{"retries": "0", "lastRetry.status": c.status, "lastRetry.exitCode": c.exitCode,
			"lastRetry.message": c.message, "lastRetry.duration": "12"}
		got3, err3 := argoexpr3.EvalBool(r.Expression, env3.GetFuncMap(scope))
		got4, err4 := argoexpr4.EvalBool(r.Expression, env4.GetFuncMap(scope))
		if err3 != nil || err4 != nil || got3 != c.want || got4 != c.want {
			t.Errorf("%s, exit code %s, %q: retried %v (v3.7, %v) and %v (v4, %v), want %v", c.status, c.exitCode, c.message,
				got3, err3, got4, err4, c.want)
		}
	}
}
