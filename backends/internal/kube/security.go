package kube

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
)

// Who the containers of a step's pod run as. A container the compiler
// adds to a pod (one that moves data, creates a step's files, waits for
// a job, deletes jobs) runs as a numeric non-root user of its own: the
// step's runAsUser when it gives one that is not root, else HelperUser.
// A numeric user is one the kubelet can verify: with runAsNonRoot and no
// runAsUser, it refuses a container whose image runs as root, or as a
// user it cannot tell from root by name (verifyRunAsNonRoot,
// pkg/kubelet/kuberuntime/security_context_others.go, Kubernetes
// v1.36.3), which the tool images (rclone's, alpine/kubectl) are.
//
// Under the restricted Pod Security Standard (ir.PodSecurityRestricted)
// every pod also has the runtime's default seccomp profile, and every
// container no privilege escalation and no capability: the checks of
// k8s.io/pod-security-admission v0.36.6 (policy/check_runAsNonRoot.go,
// check_runAsUser.go, check_seccompProfile_restricted.go,
// check_allowPrivilegeEscalation.go, check_capabilities_restricted.go).

// HelperUser is the user, and group, that a container the compiler adds
// runs as when the step gives no non-root user: 65532, the nonroot user
// of distroless images, which Tekton's own images run as.
const HelperUser int64 = 65532

// Restricted says whether every pod of p must pass the restricted Pod
// Security Standard.
func Restricted(p *ir.Pipeline) bool { return p.PodSecurity == ir.PodSecurityRestricted }

// PodSecurityContext is the pod securityContext of a step whose settings
// are sc (lowering gives it runAsNonRoot under restricted), with the
// runtime's default seccomp profile under restricted; nil for none.
func PodSecurityContext(p *ir.Pipeline, sc *ir.SecurityContext) *corev1.PodSecurityContext {
	if sc == nil && !Restricted(p) {
		return nil
	}
	out := &corev1.PodSecurityContext{}
	if sc != nil {
		out = &corev1.PodSecurityContext{RunAsUser: sc.RunAsUser, RunAsGroup: sc.RunAsGroup, FSGroup: sc.FSGroup,
			RunAsNonRoot: sc.RunAsNonRoot}
	}
	if sc != nil && sc.FSGroup != nil {
		// Without it the kubelet changes the group of every file of every
		// volume each time a pod starts: minutes on a large dataset.
		out.FSGroupChangePolicy = ptr.To(corev1.FSGroupChangeOnRootMismatch)
	}
	if Restricted(p) {
		out.SeccompProfile = &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}
	}
	return out
}

// StepSecurity is the securityContext of a step's own container: none,
// or under restricted no privilege escalation and no capability (its
// user is the pod's).
func StepSecurity(p *ir.Pipeline) *corev1.SecurityContext {
	if !Restricted(p) {
		return nil
	}
	return locked(&corev1.SecurityContext{})
}

// HelperSecurity is the securityContext of a container the compiler adds
// to the pod of a step whose settings are sc (nil for none, as for a pod
// of helpers alone): the step's non-root user, else HelperUser, with no
// privilege escalation and no capability, which it needs none of; under
// restricted, the runtime's seccomp profile too, so that a pod of
// helpers alone passes without a pod securityContext.
func HelperSecurity(p *ir.Pipeline, sc *ir.SecurityContext) *corev1.SecurityContext {
	out := locked(&corev1.SecurityContext{RunAsNonRoot: ptr.To(true)})
	switch {
	case sc != nil && sc.RunAsUser != nil && *sc.RunAsUser != 0:
		out.RunAsUser = ptr.To(*sc.RunAsUser)
	default:
		out.RunAsUser = ptr.To(HelperUser)
		if sc == nil || sc.RunAsGroup == nil {
			out.RunAsGroup = ptr.To(HelperUser)
		}
	}
	if Restricted(p) {
		out.SeccompProfile = &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}
	}
	return out
}

// WriterSecurity is the securityContext of a container the compiler adds
// that writes where the step reads and writes (it puts fetched data in
// place, or creates the step's files): HelperSecurity when the step runs
// as a non-root user; nil, the tool image's own user, when the step may
// run as root (it gives neither a non-zero runAsUser nor runAsNonRoot).
// A root step may write a claim whose folders only root can write, as
// many a volume's root folder is, and a helper there as another user
// could not put the step's data in place.
func WriterSecurity(p *ir.Pipeline, sc *ir.SecurityContext) *corev1.SecurityContext {
	if MayRunAsRoot(sc) {
		return nil
	}
	return HelperSecurity(p, sc)
}

// MayRunAsRoot says whether a step whose settings are sc may run as
// root: it gives neither a non-zero runAsUser nor runAsNonRoot (which
// lowering gives every step under restricted).
func MayRunAsRoot(sc *ir.SecurityContext) bool {
	if sc == nil {
		return true
	}
	if sc.RunAsUser != nil {
		return *sc.RunAsUser == 0
	}
	return sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot
}

// locked is sc with no privilege escalation and every capability
// dropped.
func locked(sc *corev1.SecurityContext) *corev1.SecurityContext {
	sc.AllowPrivilegeEscalation = ptr.To(false)
	sc.Capabilities = &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}
	return sc
}
