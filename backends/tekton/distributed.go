package tekton

import (
	"strconv"
	"strings"

	v1 "github.com/tektoncd/pipeline/pkg/apis/pipeline/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/backends/internal/distributed"
	"github.com/mlcube-compile/mlcube-compile/backends/internal/kube"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
)

// runName is Tekton's reference to the PipelineRun's name; podName and
// podUID are the kubelet's references to env vars of the kubectl step.
const (
	runName = "$(context.pipelineRun.name)"
	podName = "$(POD_NAME)"
	podUID  = "$(POD_UID)"
)

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
	manifest, err := ownedManifest(job, s, append(refs, runName, podName, podUID))
	if err != nil {
		return v1.PipelineTask{}, err
	}
	timeout := "0"
	if s.Timeout > 0 {
		timeout = strconv.Itoa(int(s.Timeout.Seconds()))
	}
	env := []corev1.EnvVar{
		{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
		{Name: "POD_UID", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.uid"}}},
		{Name: "MANIFEST", Value: manifest},
		{Name: "RESOURCE", Value: job.Kind()},
		{Name: "SELECTOR", Value: distributed.Selector(s, runName)},
		{Name: "STATUS", Value: job.Status},
		{Name: "SUCCEEDED", Value: job.Succeeded},
		{Name: "FAILED", Value: job.Failed},
		{Name: "TIMEOUT", Value: timeout},
	}
	if a := job.Autoscaler; a != nil {
		env = append(env,
			corev1.EnvVar{Name: "AUTOSCALER_MIN", Value: strconv.Itoa(a.Minimum)},
			corev1.EnvVar{Name: "AUTOSCALER_MAX", Value: strconv.Itoa(a.Maximum)})
	}
	t := embeddedTask(p, s, v1.TaskSpec{Steps: []v1.Step{{
		Name: stepName, Image: p.KubectlImage, ImagePullPolicy: corev1.PullPolicy(s.ImagePullPolicy),
		Env: env, Script: distributed.WaitScript,
		ComputeResources: kube.Resources(kube.HelperResources()),
	}}})
	for _, w := range unique(workspaces) {
		t.Workspaces = append(t.Workspaces, v1.WorkspacePipelineTaskBinding{Name: w, Workspace: w})
		t.TaskSpec.Workspaces = append(t.TaskSpec.Workspaces, v1.WorkspaceDeclaration{Name: w})
	}
	return t, nil
}

// ownedManifest is the job's manifest as MANIFEST carries it, owned by the
// step's pod: the kubelet expands $(POD_NAME) and $(POD_UID) in it, since
// both are defined before it, so Kubernetes deletes the job with the pod
// even when the script is killed before its trap runs. Every other $ is
// escaped but for refs, Tekton's own references. It must fit in one
// environment string.
func ownedManifest(job *distributed.Job, s *ir.Step, refs []string) (string, error) {
	doc, err := job.JSONOwnedBy(map[string]string{"apiVersion": "v1", "kind": "Pod", "name": podName, "uid": podUID})
	if err != nil {
		return "", err
	}
	manifest := escapeLiterals(doc, refs)
	// Tekton substitutes the run's name and the kubelet the pod's name
	// and uid, each at most a DNS subdomain of 253 characters, a few
	// times over: 2 KiB holds them.
	err = emit.CheckEnvString("MANIFEST", manifest, 2<<10, s.Loc, "shrink what the job carries (its env, args and configs), or compile for argo, whose controller moves a large template to a ConfigMap by itself (workflow/controller/workflowpod.go)")
	return manifest, err
}

// escapeLiterals escapes every $ of s for the kubelet, which expands
// $(VAR) and $$ in env values, but for Tekton's own references, which
// Tekton replaces with plain names before the kubelet sees them.
func escapeLiterals(s string, refs []string) string {
	pieces := []string{s}
	for _, ref := range unique(refs) {
		var next []string
		for i, piece := range pieces {
			if i%2 == 1 {
				next = append(next, piece)
				continue
			}
			parts := strings.Split(piece, ref)
			for j, part := range parts {
				if j > 0 {
					next = append(next, ref)
				}
				next = append(next, part)
			}
		}
		pieces = next
	}
	var out strings.Builder
	for i, piece := range pieces {
		if i%2 == 1 {
			out.WriteString(piece)
			continue
		}
		out.WriteString(strings.ReplaceAll(piece, "$", "$$"))
	}
	return out.String()
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
