package job

import (
	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/backends/internal/kube"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// Engine emits a batch/v1 Job, as the MLCube Kubernetes runner does.
type Engine struct{}

// Name is the --backend value.
func (Engine) Name() string { return "job" }

// Kinds are the kinds of run object the job engine emits: a Job runs
// once, with what it was compiled with.
func (Engine) Kinds() []emit.Kind {
	return []emit.Kind{{Name: "job", Needs: emit.Needs{Values: "a Job has no run-time parameters"}}}
}

// Accepts a pipeline of one step that runs in one container, with a
// default for every param it uses, and a bucket of its own if it needs
// one (kube.StoreShape): a Job runs one pod, once.
func (Engine) Accepts(p *ir.Pipeline, _ string) diag.Diagnostics {
	if refused := oneStep(p); len(refused) > 0 {
		return refused
	}
	if refused := paramsSet(p, p.Steps[0]); len(refused) > 0 {
		return refused
	}
	return kube.StoreShape(p, "a Job")
}

// Emit builds the Job, the ConfigMap it reads and the
// ResourceClaimTemplate its pod claims GPUs from. A Job calls no
// Kubernetes API, so asking for RBAC adds nothing but a warning. A
// pipeline Accepts refuses is refused with its refusals.
func (e Engine) Emit(p *ir.Pipeline, opts emit.Options) (emit.Result, error) {
	if refused := e.Accepts(p, opts.Kind); len(refused) > 0 {
		return emit.Result{Refused: refused}, nil
	}
	run, warnings, err := compile(p)
	if err != nil {
		return emit.Settle(emit.Result{}, err)
	}
	if opts.RBAC {
		warnings = append(warnings, diag.Warnf(diag.JobNoRBAC, diag.Flag("--emit-rbac").At(diag.Pos{File: p.Source}),
			"a Job calls no Kubernetes API, so --emit-rbac adds nothing"))
	}
	res := emit.Result{Run: run, Warnings: warnings}
	if cm := kube.ConfigMap(p); cm != nil {
		res.ConfigMap = cm
	}
	templates, err := kube.ResourceClaimTemplates(p)
	if err != nil {
		return emit.Settle(emit.Result{}, err)
	}
	for _, t := range templates {
		res.ResourceClaimTemplates = append(res.ResourceClaimTemplates, t)
	}
	// A Job's pod calls no API; only its movers need the network.
	policies, isolated, err := kube.Isolation(p, nil)
	if err != nil {
		return emit.Settle(emit.Result{}, err)
	}
	res.NetworkPolicies, res.Warnings = policies, append(res.Warnings, isolated...)
	return res, nil
}

// backendFlag is where a refusal of the whole pipeline is: the --backend
// flag that asked for a Job, for the spec file.
func backendFlag(p *ir.Pipeline) diag.Loc {
	return diag.Flag("--backend").At(diag.Pos{File: p.Source})
}
