package argo

import (
	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"

	"github.com/mlcube-compile/mlcube-compile/backends/distributed"
	"github.com/mlcube-compile/mlcube-compile/backends/kube"
	"github.com/mlcube-compile/mlcube-compile/backends/manifest"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
)

// workflowName is Argo's reference to the running Workflow's name.
const workflowName = "{{workflow.name}}"

// jobParam carries the created job's name between the templates of an
// adaptive Dask step.
const jobParam = "job"

// claimName is the name a volume's claim has while the Workflow runs:
// Argo names the claims it creates after the Workflow.
func claimName(v ir.Volume) string {
	if v.Create != nil {
		return workflowName + "-" + v.Name
	}
	return v.ClaimName
}

// distributedTemplates makes the templates that create a distributed
// step's job and wait for it, and returns the one the DAG task runs.
func distributedTemplates(p *ir.Pipeline, s *ir.Step, name string) ([]wfv1.Template, error) {
	job, err := distributed.Build(p, s, claimName, workflowName)
	if err != nil {
		return nil, err
	}
	doc, err := job.YAML()
	if err != nil {
		return nil, err
	}
	meta := wfv1.Metadata{Labels: kube.Labels(p.Labels, s.Labels)}
	create := wfv1.Template{
		Name:     name,
		Metadata: meta,
		Resource: &wfv1.ResourceTemplate{
			Action: "create", SetOwnerReference: true, Manifest: doc,
			SuccessCondition: job.SuccessCondition, FailureCondition: job.FailureCondition,
		},
	}
	if job.Autoscaler == nil {
		retryAndTimeout(&create, s)
		return []wfv1.Template{create}, nil
	}
	// An adaptive Dask step: create the job, then its autoscaler, and
	// wait for the job, each knowing the name the API server gave it.
	create.Name = name + "-create"
	create.Resource.SuccessCondition, create.Resource.FailureCondition = "", ""
	create.Outputs.Parameters = []wfv1.Parameter{{Name: jobParam, ValueFrom: &wfv1.ValueFrom{JSONPath: "{.metadata.name}"}}}
	input := "{{inputs.parameters." + jobParam + "}}"
	scaler, err := manifest.YAML(job.Autoscaler.Object(input))
	if err != nil {
		return nil, err
	}
	wanted, err := manifest.YAML(map[string]any{
		"apiVersion": "kubernetes.dask.org/v1", "kind": "DaskJob",
		"metadata": namespaced(input, p.Namespace),
	})
	if err != nil {
		return nil, err
	}
	inputs := wfv1.Inputs{Parameters: []wfv1.Parameter{{Name: jobParam}}}
	autoscale := wfv1.Template{
		Name: name + "-autoscale", Metadata: meta, Inputs: inputs,
		Resource: &wfv1.ResourceTemplate{Action: "create", SetOwnerReference: true, Manifest: scaler},
	}
	wait := wfv1.Template{
		Name: name + "-wait", Metadata: meta, Inputs: inputs,
		Resource: &wfv1.ResourceTemplate{
			Action: "get", Manifest: wanted,
			SuccessCondition: job.SuccessCondition, FailureCondition: job.FailureCondition,
		},
	}
	retryAndTimeout(&wait, &ir.Step{Timeout: s.Timeout})
	created := wfv1.Arguments{Parameters: []wfv1.Parameter{{Name: jobParam, Value: wfv1.AnyStringPtr("{{steps.create.outputs.parameters." + jobParam + "}}")}}}
	steps := wfv1.Template{
		Name: name,
		Steps: []wfv1.ParallelSteps{
			{Steps: []wfv1.WorkflowStep{{Name: "create", Template: create.Name}}},
			{Steps: []wfv1.WorkflowStep{
				{Name: "autoscale", Template: autoscale.Name, Arguments: created},
				{Name: "wait", Template: wait.Name, Arguments: created},
			}},
		},
	}
	retryAndTimeout(&steps, &ir.Step{Retry: s.Retry})
	return []wfv1.Template{steps, create, autoscale, wait}, nil
}

func namespaced(name, namespace string) map[string]any {
	meta := map[string]any{"name": name}
	if namespace != "" {
		meta["namespace"] = namespace
	}
	return meta
}

// RBAC is what the Workflow's service account sa needs: to create and
// read the jobs of distributed steps, and what every Argo executor needs
// since v3.4 (workflowtaskresults). Owner references to the Workflow
// also need update on workflows/finalizers where the API server enforces
// owner reference permissions.
func RBAC(p *ir.Pipeline, sa string) []any {
	rules := append(distributed.Rules(p, []string{"create", "get"}),
		distributed.Rule{Group: "argoproj.io", Resources: []string{"workflowtaskresults"}, Verbs: []string{"create", "patch"}})
	for _, s := range p.Steps {
		if s.Kind != ir.Container {
			rules = append(rules, distributed.Rule{Group: "argoproj.io", Resources: []string{"workflows/finalizers"}, Verbs: []string{"update"}})
			break
		}
	}
	return distributed.RBAC(p, sa, rules)
}
