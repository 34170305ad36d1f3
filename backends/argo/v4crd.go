package argo

import (
	"fmt"
	"regexp"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"

	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// Argo v4's release manifests install its CRDs with full validation
// (docs/upgrading.md of v4.0, "Full CRDs"), so a v4 cluster's API server
// refuses, on create, what neither version's validator checks: the caps
// below, which v4's types set "to limit CEL validation costs"
// (+kubebuilder:validation markers in pkg/apis/workflow/v1alpha1 of
// argo-workflows v4.0.7), and a cron schedule of another form than
// v4Schedule. Argo v3.7, and v4 installed with its minimal CRDs, take
// them, so they are warnings.
const (
	// v4MaxTemplates caps a WorkflowSpec's templates.
	v4MaxTemplates = 200
	// v4MaxDAGTasks caps a DAG template's tasks.
	v4MaxDAGTasks = 200
	// v4MaxInputParameters caps a template's inputs.parameters.
	v4MaxInputParameters = 500
)

// v4Schedule is the form each of a CronWorkflow's spec.schedules takes
// under v4's CRD (cron_workflow_types.go of v4.0.7): five fields of
// letters, digits and * , / ? -, or a descriptor. The cron parser both
// versions' validators use (robfig/cron's ParseStandard), which the
// compiler checks schedules with, also takes a TZ= or CRON_TZ= prefix.
// (The CRDs of v4.0.2 to v4.0.5 took no month or day names either;
// v4.0.6 allowed them.)
var v4Schedule = regexp.MustCompile(`^(@(yearly|annually|monthly|weekly|daily|midnight|hourly)|` +
	`@every\s+([0-9]+(ns|us|µs|ms|s|m|h))+|` +
	`([A-Za-z0-9*,/?-]+\s+){4}[A-Za-z0-9*,/?-]+)$`)

// v4CRDWarnings are what a cluster with Argo v4's full CRDs would refuse
// in the object of kind that runs spec.
func v4CRDWarnings(p *ir.Pipeline, spec wfv1.WorkflowSpec, kind Kind) diag.Diagnostics {
	var out diag.Diagnostics
	object := objectName(kind)
	steps := p.Spec.Field("steps")
	if n := len(spec.Templates); n > v4MaxTemplates {
		out = append(out, diag.Warnf(diag.ArgoV4TooManyTemplate, steps,
			"the %s has %d templates, and Argo v4's full CRDs take at most %d", object, n, v4MaxTemplates).
			WithFix("to run on both, split the pipeline into smaller ones").
			WithDetail("Argo v4's CRDs (installed by its release manifests) take at most %d templates, so a v4 cluster with "+
				"them refuses it, while Argo v3.7 and v4 with its minimal CRDs run it.", v4MaxTemplates))
	}
	for _, t := range spec.Templates {
		if t.DAG != nil && len(t.DAG.Tasks) > v4MaxDAGTasks {
			out = append(out, diag.Warnf(diag.ArgoV4TooManyTasks, steps,
				"the %s's DAG %s has %d tasks, and Argo v4's full CRDs take at most %d in a DAG", object, t.Name, len(t.DAG.Tasks),
				v4MaxDAGTasks).
				WithFix(fmt.Sprintf("to run on both, split the pipeline into pipelines of at most %d steps", v4MaxDAGTasks)).
				WithDetail("Argo v4's CRDs (installed by its release manifests) take at most %d tasks in a DAG, so a v4 cluster "+
					"with them refuses it, while Argo v3.7 and v4 with its minimal CRDs run it.", v4MaxDAGTasks))
		}
		if n := len(t.Inputs.Parameters); n > v4MaxInputParameters {
			out = append(out, diag.Warnf(diag.ArgoV4TooManyParams, steps,
				"the %s's template %s has %d input parameters, and Argo v4's full CRDs take at most %d", object, t.Name, n,
				v4MaxInputParameters).
				WithDetail("Argo v4's CRDs (installed by its release manifests) take at most %d input parameters in a "+
					"template, so a v4 cluster with them refuses it, while Argo v3.7 and v4 with its minimal CRDs run it.",
					v4MaxInputParameters))
		}
	}
	if kind == KindCronWorkflow && p.Schedule != nil {
		for _, c := range p.Schedule.Cron {
			if !v4Schedule.MatchString(c) {
				out = append(out, diag.Warnf(diag.ArgoV4Schedule, p.Spec.Field("schedule"),
					"Argo v4's full CRDs refuse the schedule %q, which Argo v3.7 takes", c).
					WithFix("to run on both, write a TZ= or CRON_TZ= prefix as timezone:").
					WithDetail("Argo v4's CRDs (installed by its release manifests) take five fields of letters, digits and "+
						"* , / ? -, or an @daily-style descriptor."))
			}
		}
	}
	return out
}

// objectName is the Argo kind that kind emits.
func objectName(kind Kind) string {
	switch kind {
	case KindWorkflowTemplate:
		return "WorkflowTemplate"
	case KindCronWorkflow:
		return "CronWorkflow"
	}
	return "Workflow"
}
