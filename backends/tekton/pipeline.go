package tekton

import (
	"context"
	"fmt"

	v1 "github.com/tektoncd/pipeline/pkg/apis/pipeline/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"knative.dev/pkg/apis"

	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
)

// The Pipeline kind is the PipelineRun's pipelineSpec as a named Pipeline,
// with each step's task still embedded (taskSpec) rather than separate Task
// objects:
//   - tkn pipeline start NAME only creates a PipelineRun whose pipelineRef
//     names the Pipeline (tektoncd/cli pkg/cmd/pipeline/start.go,
//     startPipeline); it neither needs nor creates Tasks.
//   - Tekton's webhook validates an embedded taskSpec with the Pipeline
//     (pkg/apis/pipeline/v1/pipeline_validation.go, validateTask: the
//     params and workspaces a task uses, its steps), while a taskRef is
//     only resolved when a run starts: a missing or changed Task fails
//     the run, not kubectl apply.
//   - One object is applied and deleted as one, and Tasks named after
//     steps (train, evaluate) would collide between pipelines in a
//     namespace.
//
// A cluster whose disable-inline-spec feature flag lists "pipeline" (its
// default is empty: pkg/apis/config/feature_flags.go) refuses embedded
// tasks, and the PipelineRun kind's embedded pipeline too when it lists
// "pipelinerun".
//
// The Pipeline carries the labels of the run, which Tekton copies onto each
// PipelineRun of it (pkg/reconciler/pipelinerun/pipelinerun.go,
// storePipelineSpecAndMergeMeta), and each task's timeout; the rest of
// what the PipelineRun kind sets is given at start (start.go).

// asPipeline turns pr, the PipelineRun kind of p, into the Pipeline kind:
// the Pipeline; the run that tkn pipeline start makes of it with the
// settings, which behaves as pr does; and the settings, each a warning.
// Both the Pipeline and that run pass Tekton's defaulting and validation.
func asPipeline(p *ir.Pipeline, pr *v1.PipelineRun) (*v1.Pipeline, *v1.PipelineRun, []setting, error) {
	pl := pipeline(p, pr)
	if err := emit.CheckSize(pl, p.Spec.Field("steps"), "the Pipeline", emit.ObjectLimit,
		"etcd's limit on an object"); err != nil {
		return nil, nil, nil, err
	}
	if err := validatePipeline(pl); err != nil {
		return nil, nil, nil, err
	}
	run, settings, err := start(p, pl, pr)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := validate(run); err != nil {
		return nil, nil, nil, fmt.Errorf("tkn pipeline start %s: %w", pl.Name, err)
	}
	return pl, run, settings, nil
}

// pipeline is pr's pipeline as a named Pipeline. A task without a timeout
// of its own gets timeout: 0s, none: the run that tkn pipeline start makes
// has no timeouts.tasks, and Tekton's reconciler
// (pkg/reconciler/pipelinerun/pipelinerun.go, pipelineRunTimeout) leaves
// the TaskRun of a pipeline task without a timeout with none then, which
// TaskRun defaulting (pkg/apis/pipeline/v1/taskrun_defaults.go) turns into
// default-timeout-minutes, an hour: a training step would be killed. A
// task's own timeout is the TaskRun's, 0 included (createTaskRun there).
func pipeline(p *ir.Pipeline, pr *v1.PipelineRun) *v1.Pipeline {
	spec := pr.Spec.PipelineSpec.DeepCopy()
	for i := range spec.Tasks {
		if spec.Tasks[i].Timeout == nil {
			spec.Tasks[i].Timeout = &metav1.Duration{Duration: 0}
		}
	}
	return &v1.Pipeline{
		TypeMeta:   metav1.TypeMeta{APIVersion: "tekton.dev/v1", Kind: "Pipeline"},
		ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace, Labels: pr.Labels},
		Spec:       *spec,
	}
}

// validatePipeline runs what Tekton's webhooks run when the Pipeline is
// created, on a copy: the printed object stays without defaults.
func validatePipeline(pl *v1.Pipeline) error {
	ctx := apis.WithinCreate(context.Background())
	created := pl.DeepCopy()
	created.SetDefaults(ctx)
	// Validate returns a *FieldError; a nil one must not become a non-nil error.
	if ferr := created.Validate(ctx); ferr != nil {
		return fmt.Errorf("the Pipeline fails Tekton's validation: %w", ferr)
	}
	return nil
}
