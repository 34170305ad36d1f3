package argo

import (
	"sync"

	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/backends/internal/distributed"
	"github.com/mlcube-compile/mlcube-compile/backends/internal/kube"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// Engine emits Argo Workflows, WorkflowTemplates and CronWorkflows.
type Engine struct{}

// Name is the --backend value.
func (Engine) Name() string { return "argo" }

// Kinds are the --kind values, the default first. A CronWorkflow starts
// its runs itself, on the pipeline's schedule, with no one to pass their
// params.
func (Engine) Kinds() []emit.Kind {
	out := make([]emit.Kind, len(Kinds))
	for i, k := range Kinds {
		out[i] = emit.Kind{Name: string(k)}
		if k == KindCronWorkflow {
			out[i].Needs = emit.Needs{Values: "a CronWorkflow starts its runs itself, with no one to pass -p", Schedule: true}
		}
	}
	return out
}

// Accepts every pipeline: Argo runs every shape the compiler makes.
func (Engine) Accepts(*ir.Pipeline, string) diag.Diagnostics { return nil }

// validatorMu serialises Argo's validator: it counts placeholders in a
// package variable without a lock (workflow/common/placeholder.go in
// argo-workflows v3.7), and lint emits on several goroutines.
var validatorMu sync.Mutex

// Emit builds the run object of opts.Kind, and its RBAC when asked. An
// Argo Workflow creates its own ConfigMap as its first task, so the
// result has none to apply before it.
func (Engine) Emit(p *ir.Pipeline, opts emit.Options) (emit.Result, error) {
	sa, rbac, err := distributed.RunnerRBAC(p, opts.RBAC, RBAC)
	if err != nil {
		return emit.Settle(emit.Result{}, err)
	}
	validatorMu.Lock()
	defer validatorMu.Unlock()
	run, warnings, err := compile(p, Options{Kind: Kind(opts.Kind), ServiceAccountName: sa})
	if err != nil {
		return emit.Settle(emit.Result{}, err)
	}
	// Argo's executor, in every pod, calls the API server
	// (workflow/executor, the wait container's reports of its outputs).
	policies, isolated, err := kube.Isolation(p,
		[]kube.Egress{kube.APIServerEgress("Argo's executor, in every pod, reports to the API server")})
	return emit.Settle(emit.Result{RBAC: rbac, NetworkPolicies: policies, Run: run,
		Warnings: append(warnings, isolated...)}, err)
}
