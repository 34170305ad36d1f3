package argo

import (
	"context"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	"github.com/argoproj/argo-workflows/v3/workflow/validate"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/backends/internal/kube"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// Kind is the kind of Argo object a pipeline becomes.
type Kind string

// The kinds --kind takes.
const (
	// KindWorkflow is one run, submitted with argo submit.
	KindWorkflow Kind = "workflow"
	// KindWorkflowTemplate is a named definition that runs are submitted
	// from: argo submit --from workflowtemplate/NAME -p key=value.
	KindWorkflowTemplate Kind = "workflowtemplate"
	// KindCronWorkflow starts a run on a schedule.
	KindCronWorkflow Kind = "cronworkflow"
)

// Kinds lists the kinds, in the order help shows them.
var Kinds = []Kind{KindWorkflow, KindWorkflowTemplate, KindCronWorkflow}

// namedMeta is the metadata of an object with a fixed name: the
// pipeline's, which users pass to argo.
func namedMeta(p *ir.Pipeline) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace, Labels: kube.Labels(p.Labels)}
}

// workflowTemplate is a definition that runs are submitted from; each run
// carries the pipeline's labels.
func workflowTemplate(p *ir.Pipeline, spec wfv1.WorkflowSpec) (*wfv1.WorkflowTemplate, error) {
	spec.WorkflowMetadata = &wfv1.WorkflowMetadata{Labels: kube.Labels(p.Labels)}
	t := &wfv1.WorkflowTemplate{
		TypeMeta:   metav1.TypeMeta{APIVersion: "argoproj.io/v1alpha1", Kind: "WorkflowTemplate"},
		ObjectMeta: namedMeta(p),
		Spec:       spec,
	}
	err := checkObject(t, p.Spec, "WorkflowTemplate",
		"Argo's limit on a Workflow, which each run copies the template into", func() error {
			return validateDAG(t.Spec, func(spec wfv1.WorkflowSpec) error {
				part := *t
				part.Spec = spec
				return validate.ValidateWorkflowTemplate(nil, nil, &part, nil, validate.ValidateOpts{Lint: true})
			})
		})
	if err != nil {
		return nil, err
	}
	return t, nil
}

// cronWorkflow starts a run on each of the pipeline's schedules. Argo
// names each run after it with -<unix time> appended, so its name is at
// most 52 characters; the compiler keeps pipeline names shorter than that.
func cronWorkflow(p *ir.Pipeline, spec wfv1.WorkflowSpec) (*wfv1.CronWorkflow, error) {
	sc := p.Schedule
	if sc == nil || len(sc.Cron) == 0 {
		return nil, emit.Refuse(diag.BadSchedule, p.Spec.Field("schedule"),
			"--kind cronworkflow needs a schedule: give --schedule '0 2 * * *', or schedule: in a pipeline file")
	}
	c := &wfv1.CronWorkflow{
		TypeMeta:   metav1.TypeMeta{APIVersion: "argoproj.io/v1alpha1", Kind: "CronWorkflow"},
		ObjectMeta: namedMeta(p),
		Spec: wfv1.CronWorkflowSpec{
			WorkflowSpec:            spec,
			Schedules:               sc.Cron,
			Timezone:                sc.Timezone,
			ConcurrencyPolicy:       wfv1.ConcurrencyPolicy(sc.ConcurrencyPolicy),
			StartingDeadlineSeconds: sc.StartingDeadlineSeconds,
			Suspend:                 sc.Suspend,
			WorkflowMetadata:        &metav1.ObjectMeta{Labels: kube.Labels(p.Labels)},
		},
	}
	err := checkObject(c, p.Spec, "CronWorkflow",
		"Argo's limit on a Workflow, which each run copies the spec into", func() error {
			return validateDAG(c.Spec.WorkflowSpec, func(spec wfv1.WorkflowSpec) error {
				part := *c
				part.Spec.WorkflowSpec = spec
				return validate.ValidateCronWorkflow(context.Background(), nil, nil, &part, nil)
			})
		})
	if err != nil {
		return nil, err
	}
	return c, nil
}
