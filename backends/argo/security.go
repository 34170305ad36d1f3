package argo

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/mlcube-compile/mlcube-compile/backends/internal/kube"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
)

// executorPatch is the podSpecPatch that locks down Argo's own
// containers in the pod of a container or containerSet template of a
// step whose pod's settings are sc: its init container and its wait container
// (common.InitContainerName and WaitContainerName). Argo gives them the
// securityContext of the controller's executor config, none by default
// (newExecContainer, workflow/controller/workflowpod.go), and applies a
// template's podSpecPatch after it has added them, as a strategic merge
// patch whose containers merge by name (createWorkflowPod there;
// ApplyPodSpecPatch, workflow/util/util.go; v3.7.18 and v4.0.7). So the
// compiler sets what the restricted Pod Security Standard wants of them,
// laid over what the executor config gives. It sets their user, too,
// when the pod must run as non-root and names no user, so that the
// kubelet can verify it is not root whatever the executor image's USER
// says: kube.HelperUser, the user of the compiler's own containers,
// since the verify container must read what the init container loaded
// (minio-go makes a folder 0700 and its files 0600), where Argo's own
// choice for the pods it locks down is 8737 (MinimalCtrSC,
// workflow/common/security_context.go). With a user, they run as it, as
// Argo runs them, and read what the step wrote. Empty when there is
// nothing to set.
func executorPatch(p *ir.Pipeline, sc *ir.SecurityContext) string {
	named := sc != nil && sc.RunAsUser != nil && *sc.RunAsUser != 0
	needUser := !named && (kube.Restricted(p) || !kube.MayRunAsRoot(sc))
	if !kube.Restricted(p) && !needUser {
		return ""
	}
	ctx := &corev1.SecurityContext{}
	if kube.Restricted(p) {
		ctx = kube.HelperSecurity(p, sc)
		ctx.RunAsUser, ctx.RunAsGroup = nil, nil
	}
	if needUser {
		ctx.RunAsUser = ptr.To(kube.HelperUser)
		if sc == nil || sc.RunAsGroup == nil {
			ctx.RunAsGroup = ptr.To(kube.HelperUser)
		}
	}
	patch := map[string]any{
		"initContainers": []map[string]any{{"name": "init", "securityContext": ctx}},
		"containers":     []map[string]any{{"name": "wait", "securityContext": ctx}},
	}
	// Plain maps and a typed securityContext: it cannot fail.
	out, _ := yaml.Marshal(patch)
	return string(out)
}

// podSpecPatch joins the patches of a template: each sets top-level
// fields of its own (resourceClaims; initContainers and containers).
func podSpecPatch(patches ...string) string {
	var out []string
	for _, p := range patches {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, "")
}
