package tekton

import (
	v1 "github.com/tektoncd/pipeline/pkg/apis/pipeline/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/mlcube-compile/mlcube-compile/backends/internal/distributed"
	"github.com/mlcube-compile/mlcube-compile/backends/internal/kube"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
)

// runName is Tekton's reference to the PipelineRun's name.
const runName = "$(context.pipelineRun.name)"

// claimRef is Tekton's reference to the claim bound to a workspace.
func claimRef(workspace string) string { return "$(workspaces." + workspace + ".claim)" }

// distributedTask runs a distributed step as a task whose one step, in the
// platform's kubectl image, creates the job and waits for it. The job's
// manifest reaches kubectl as the value of an env var.
func distributedTask(p *ir.Pipeline, s *ir.Step) (v1.PipelineTask, error) {
	var refs []string
	var workspaces []string
	claim := func(v ir.Volume) string {
		if v.Create == nil {
			return v.ClaimName
		}
		workspaces = append(workspaces, v.Name)
		refs = append(refs, claimRef(v.Name))
		return claimRef(v.Name)
	}
	job, err := distributed.Build(p, s, claim, runName)
	if err != nil {
		return v1.PipelineTask{}, err
	}
	manifest, err := distributed.OwnedManifest(job, s, unique(append(refs, runName)),
		"shrink what the job carries (its env, args and configs), or compile for argo, whose controller moves a large "+
			"template to a ConfigMap by itself (workflow/controller/workflowpod.go)")
	if err != nil {
		return v1.PipelineTask{}, err
	}
	env := distributed.WaitEnv(job, s, manifest, runName)
	t := embeddedTask(p, s, v1.TaskSpec{Steps: []v1.Step{{
		Name: stepName, Image: p.KubectlImage, ImagePullPolicy: corev1.PullPolicy(s.ImagePullPolicy),
		Env: env, Script: distributed.WaitScript,
		ComputeResources: kube.Resources(kube.HelperResources()),
		SecurityContext:  kube.HelperSecurity(p, s.SecurityContext),
	}}})
	for _, w := range unique(workspaces) {
		t.Workspaces = append(t.Workspaces, v1.WorkspacePipelineTaskBinding{Name: w, Workspace: w})
		t.TaskSpec.Workspaces = append(t.TaskSpec.Workspaces, v1.WorkspaceDeclaration{Name: w})
	}
	return t, nil
}

// RBAC is what the PipelineRun's service account sa needs to delete what
// an earlier attempt left (by label, waiting until it is gone), create
// the jobs of distributed steps, wait for them, and delete them when the
// step fails or is stopped.
func RBAC(p *ir.Pipeline, sa string) []any {
	return distributed.RBAC(p, sa, distributed.Rules(p, []string{"create", "delete", "get", "list", "watch"}))
}

func unique(list []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range list {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
