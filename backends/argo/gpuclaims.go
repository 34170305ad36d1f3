package argo

import (
	"fmt"
	"strconv"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"

	"github.com/mlcube-compile/mlcube-compile/backends/internal/kube"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// GPUs by Dynamic Resource Allocation on Argo. A template has no field
// for the pod's resourceClaims (v3.7.18 and v4.0.7), so a step's pod gets
// its GPU claim through the template's podSpecPatch: the controller
// merges it into the pod it built as a strategic merge patch of a
// PodSpec (createWorkflowPod, workflow/controller/workflowpod.go;
// ApplyPodSpecPatch, workflow/util/util.go), where resourceClaims merge
// by name. The container that uses the claim names it in its own
// resources.claims, a typed field of the template's container that Argo
// copies to the pod as it is: the patch names no container, so it
// cannot miss one (the user's container is "main", or "run" in the
// containerSet of a step that uploads). An MPIJob's pods carry their
// claims in the job's own pod templates.

// claimsPatch is the podSpecPatch that gives a pod whose user container
// asks for r its GPU claim; "" when r asks for none by DRA. Its names
// are double-quoted, so that YAML reads a name such as 1e3 as a string.
func claimsPatch(r ir.Resources) string {
	claims := kube.PodResourceClaims(r)
	if claims == nil {
		return ""
	}
	c := claims[0]
	field, value := "resourceClaimTemplateName", c.ResourceClaimTemplateName
	if c.ResourceClaimName != nil {
		field, value = "resourceClaimName", c.ResourceClaimName
	}
	return fmt.Sprintf("resourceClaims:\n- name: %s\n  %s: %s\n", strconv.Quote(c.Name), field, strconv.Quote(*value))
}

// claimTemplatesTemplates are the templates that apply the pipeline's
// ResourceClaimTemplates, one each, as the run's first tasks: "argo
// submit wf.yaml" ignores every document but the Workflow, so the
// Workflow makes them, as it makes its ConfigMap (configsTemplate:
// named after their content, applied server-side, owned by each run
// that applies them).
func claimTemplatesTemplates(p *ir.Pipeline, taken []wfv1.Template) ([]wfv1.Template, error) {
	objs, err := kube.ResourceClaimTemplates(p)
	if err != nil {
		return nil, err
	}
	var out []wfv1.Template
	for i, obj := range objs {
		name := uniqueName(fmt.Sprintf("gpu-claims-%d", i+1), append(taken, out...))
		if len(objs) == 1 {
			name = uniqueName("gpu-claims", taken)
		}
		t, err := applyTemplate(p, name, obj)
		if err != nil {
			return nil, err
		}
		out = append(out, *t)
	}
	return out, nil
}

// afterClaimTemplates adds a task for each template that applies a
// ResourceClaimTemplate, before every task that waits for no other.
func afterClaimTemplates(tasks []wfv1.DAGTask, applies []wfv1.Template) []wfv1.DAGTask {
	for _, t := range applies {
		tasks = runFirst(tasks, t.Name, t.Name)
	}
	return tasks
}

// firstTemplateRequest is where the first step whose pods claim GPUs
// from a template asks for them.
func firstTemplateRequest(p *ir.Pipeline) diag.Loc {
	for _, s := range p.Steps {
		for _, r := range []ir.Resources{s.Resources, launcherResources(s)} {
			if r.UsesDRA() && r.GPUClaim.Template != "" {
				return r.GPUClaim.At
			}
		}
	}
	return p.Platform.Field("gpu")
}

// launcherResources are what an MPI step's launcher asks for.
func launcherResources(s *ir.Step) ir.Resources {
	if s.MPI == nil {
		return ir.Resources{}
	}
	return s.MPI.Launcher
}
