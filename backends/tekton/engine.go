package tekton

import (
	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/backends/internal/distributed"
	"github.com/mlcube-compile/mlcube-compile/backends/internal/kube"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
)

// Engine emits Tekton PipelineRuns.
type Engine struct{}

// Name is the --backend value.
func (Engine) Name() string { return "tekton" }

// Kinds are the kinds of run object Tekton's engine emits.
func (Engine) Kinds() []string { return []string{"pipelinerun"} }

// Emit builds the PipelineRun, the ConfigMap its tasks read, and its RBAC
// when asked.
func (Engine) Emit(p *ir.Pipeline, opts emit.Options) (emit.Result, error) {
	sa, rbac, err := distributed.RunnerRBAC(p, opts.RBAC, RBAC)
	if err != nil {
		return emit.Result{}, err
	}
	run, warnings, err := compile(p, Options{ServiceAccountName: sa})
	if err != nil {
		return emit.Result{}, err
	}
	res := emit.Result{RBAC: rbac, Run: run, Warnings: warnings}
	if cm := kube.ConfigMap(p); cm != nil {
		res.ConfigMap = cm
	}
	return res, nil
}
