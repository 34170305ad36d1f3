package tekton

import (
	"fmt"

	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/backends/internal/distributed"
	"github.com/mlcube-compile/mlcube-compile/backends/internal/kube"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
)

// The kinds --kind takes.
const (
	// KindPipelineRun is one run that embeds its pipeline, created with
	// kubectl create -f.
	KindPipelineRun = "pipelinerun"
	// KindPipeline is a named Pipeline that tkn pipeline start NAME runs,
	// given at start what a Pipeline cannot carry.
	KindPipeline = "pipeline"
)

// Engine emits Tekton PipelineRuns and Pipelines.
type Engine struct{}

// Name is the --backend value.
func (Engine) Name() string { return "tekton" }

// Kinds are the --kind values, the default first.
func (Engine) Kinds() []string { return []string{KindPipelineRun, KindPipeline} }

// Emit builds the PipelineRun, or the Pipeline of opts.Kind, the ConfigMap
// its tasks read, and its RBAC when asked.
func (Engine) Emit(p *ir.Pipeline, opts emit.Options) (emit.Result, error) {
	var res emit.Result
	if opts.Kind != "" && opts.Kind != KindPipelineRun && opts.Kind != KindPipeline {
		return res, fmt.Errorf("tekton emits no kind %q", opts.Kind)
	}
	var o Options
	if opts.RBAC {
		sa, err := distributed.RunnerAccount(p)
		if err != nil {
			return res, err
		}
		o.ServiceAccountName = sa
		res.RBAC = RBAC(p, sa)
	}
	run, err := compile(p, o)
	if err != nil {
		return emit.Result{}, err
	}
	res.Run, res.Warnings = run, warnings(p, opts.Kind)
	if opts.Kind == KindPipeline {
		pl, _, settings, err := asPipeline(p, run)
		if err != nil {
			return emit.Result{}, err
		}
		res.Run = pl
		for _, s := range settings {
			res.Warnings = append(res.Warnings, s.warning())
		}
	}
	if cm := kube.ConfigMap(p); cm != nil {
		res.ConfigMap = cm
	}
	return res, nil
}
