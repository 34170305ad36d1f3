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
			"the Workflow's first task applies its ConfigMap, and the run uses the namespace's default service account, which "+
				"cannot create configmaps unless granted; compile with --emit-rbac, which makes the run an account with create, "+
				"get and patch on configmaps, or name one set up for runs with serviceAccountName on the platform"))
	}
	if len(p.ResourceClaimTemplates) > 0 && account == "" {
		out = append(out, diag.Warnf(diag.ArgoClaimTemplateAccount, firstTemplateRequest(p),
			"the Workflow's first task applies the ResourceClaimTemplate its GPU pods claim their GPUs from, and the run uses "+
				"the namespace's default service account, which cannot create resourceclaimtemplates unless granted; compile "+
				"with --emit-rbac, which makes the run an account with create, get and patch on them, or name one set up for "+
				"runs with serviceAccountName on the platform"))
	}
	if collectsArtifacts(p) && account == "" {
		// Argo runs the GC pod as the namespace's default account when
		// artifactGC names none (getArtifactGCPodInfo, and
		// processCompletedArtifactGCPod's forceFinalizerRemoval,
		// workflow/controller/artifact_gc.go, v3.7.18 and v4.0.7).
		out = append(out, diag.Warnf(diag.ArgoArtifactGCAccount, p.Platform.Field("objectStore").Field("artifactGC"),
			"the pod that deletes the run's artifacts (objectStore.artifactGC) runs as the namespace's default service "+
				"account, which cannot read the run's workflowartifactgctasks unless granted; the Workflow is then deleted all "+
				"the same and its data stays in the bucket, with no error. Compile with --emit-rbac, which makes the run an "+
				"account with list and watch on workflowartifactgctasks and patch on their status, or name one set up for runs "+
				"with serviceAccountName on the platform"))
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
			"the claim %s is created for each run as {{workflow.name}}-%s and deleted when the run succeeds (volumeClaimGC: "+
				"OnWorkflowSuccess), so results written there vanish with it; a failed run keeps it for debugging. To keep "+
				"results, set storage.pvc to an existing claim, or copy them out in a last step", v.Name, v.Name))
		if c := v.Concurrent; c != nil {
			out = append(out, diag.Warnf(diag.ArgoClaimOneNode, storage.Field("accessModes"),
				"steps %s and %s may run at the same time and both mount the %s claim %s, which attaches to one node: Argo does "+
					"not keep them on one node, so one may wait for the other's volume (Multi-Attach); use ReadWriteMany, or order "+
					"them with after:", c[0], c[1], v.Create.AccessModes[0], v.Name))
		}
	}
	return out
}
