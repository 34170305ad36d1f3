package argo

import (
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// warnings explain what the Workflow does that the spec does not say,
// each at what it is about. account is the service account the run
// uses, "" for the namespace's default one.
//
// The Workflow's first task applies its ConfigMap, which takes create,
// get and patch on configmaps: the namespace's default account has none
// of them unless an administrator granted them, so a run on it is
// warned about; an account the platform names is one set up for the
// runs, and what it needs is documented (docs/guide.md, "What must be on
// the claim before a run"), not warned about in every compile.
func warnings(p *ir.Pipeline, account string) diag.Diagnostics {
	var out diag.Diagnostics
	storage := p.Platform.Field("storage")
	if p.Config != nil && account == "" {
		out = append(out, diag.Warnf(diag.ArgoConfigMapAccount, p.Spec.Field("configs"),
			"the run uses the namespace's default service account, which cannot create the ConfigMap its first task applies").
			WithFix("compile with --emit-rbac, which makes the run an account with create, get and patch on configmaps, or "+
				"name one set up for runs with serviceAccountName on the platform").
			WithDetail("The Workflow's first task applies its ConfigMap, and the namespace's default service account cannot "+
				"create configmaps unless an administrator granted it."))
	}
	if len(p.ResourceClaimTemplates) > 0 && account == "" {
		out = append(out, diag.Warnf(diag.ArgoClaimTemplateAccount, firstTemplateRequest(p),
			"the run uses the namespace's default service account, which cannot create the ResourceClaimTemplate of its GPUs").
			WithFix("compile with --emit-rbac, which makes the run an account with create, get and patch on "+
				"resourceclaimtemplates, or name one set up for runs with serviceAccountName on the platform").
			WithDetail("The Workflow's first task applies the ResourceClaimTemplate its GPU pods claim their GPUs from, and "+
				"the namespace's default service account cannot create resourceclaimtemplates unless an administrator granted "+
				"it."))
	}
	if collectsArtifacts(p) && account == "" {
		// Argo runs the GC pod as the namespace's default account when
		// artifactGC names none (getArtifactGCPodInfo, and
		// processCompletedArtifactGCPod's forceFinalizerRemoval,
		// workflow/controller/artifact_gc.go, v3.7.18 and v4.0.7).
		out = append(out, diag.Warnf(diag.ArgoArtifactGCAccount, p.Platform.Field("objectStore").Field("artifactGC"),
			"the pod that deletes the run's artifacts runs as the namespace's default account, and may leave them in the "+
				"bucket").
			WithFix("compile with --emit-rbac, which makes the run an account with list and watch on workflowartifactgctasks "+
				"and patch on their status, or name one set up for runs with serviceAccountName on the platform").
			WithDetail("The pod of objectStore.artifactGC runs as the namespace's default service account, which cannot "+
				"read the run's workflowartifactgctasks unless granted; the Workflow is then deleted all the same and its data "+
				"stays in the bucket, with no error (getArtifactGCPodInfo and processCompletedArtifactGCPod's "+
				"forceFinalizerRemoval, workflow/controller/artifact_gc.go, Argo v3.7.18 and v4.0.7)."))
	}
	for _, v := range p.Volumes {
		if v.Create == nil {
			continue
		}
		// Argo deletes the claims it creates when the Workflow succeeds
		// (volumeClaimGC defaults to OnWorkflowSuccess:
		// pkg/apis/workflow/v1alpha1/workflow_types.go, GetVolumeClaimGC;
		// workflow/controller/operator.go, deletePVCs).
		out = append(out, diag.Warnf(diag.ClaimPerRunDeleted, storage,
			"the claim %s is created for each run and deleted when the run succeeds (volumeClaimGC: OnWorkflowSuccess)",
			v.Name).
			WithFix("to keep results, set storage.pvc to an existing claim, or copy them out in a last step").
			WithDetail("Each run's claim is named {{workflow.name}}-%s. Argo deletes the claims it creates when the "+
				"Workflow succeeds (GetVolumeClaimGC in pkg/apis/workflow/v1alpha1/workflow_types.go, deletePVCs in "+
				"workflow/controller/operator.go), so results written there vanish with it; a failed run keeps it for "+
				"debugging.", v.Name))
		if c := v.Concurrent; c != nil {
			out = append(out, diag.Warnf(diag.ArgoClaimOneNode, storage.Field("accessModes"),
				"steps %s and %s may run at the same time and both mount the %s claim %s, which attaches to one node", c[0], c[1],
				v.Create.AccessModes[0], v.Name).
				WithFix("use ReadWriteMany, or order them with after:").
				WithDetail("Argo does not keep the steps on one node, so one may wait for the other's volume (Multi-Attach)."))
		}
	}
	return out
}
