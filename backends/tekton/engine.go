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
	var res emit.Result
	var o Options
	if opts.RBAC {
		sa, err := distributed.RunnerAccount(p)
		if err != nil {
			return res, err
		}
		o.ServiceAccountName = sa
		res.RBAC = RBAC(p, sa)
	}
	run, warnings, err := compile(p, o)
	if err != nil {
		return emit.Result{}, err
	}
	res.Run, res.Warnings = run, warnings
	if cm := kube.ConfigMap(p); cm != nil {
		res.ConfigMap = cm
	}
	return res, nil
}
