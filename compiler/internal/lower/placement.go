package lower

import (
	"fmt"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/spec"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// resources merges the step's requests over what the cube's docker flags say.
func (lw *lowering) resources(st *spec.Step, gpus int, fx spec.DockerEffects) ir.Resources {
	r := ir.Resources{GPU: gpus, CPU: fx.CPU, Memory: fx.Memory, LimitsEqualRequests: lw.plat.LimitsEqual}
	if st.Resources.CPU != nil {
		r.CPU = quantity(fmt.Sprint(st.Resources.CPU))
	}
	if st.Resources.Memory != nil {
		r.Memory = quantity(fmt.Sprint(st.Resources.Memory))
	}
	if r.LimitsEqualRequests && (r.CPU == "" || r.Memory == "") {
		// Said at the step, which may not write resources.
		lw.warnf(diag.LimitWithoutRequest, st.Loc.Field("resources").At(st.Loc.Pos()), "the platform sets limitsEqualRequests, but this requests no cpu or no memory, so it gets no limit for it, and a ResourceQuota that counts limits rejects its pod; give resources.cpu and resources.memory")
	}
	if gpus > 0 {
		r.GPUResource = lw.plat.GPU.Resource
		if r.GPUResource == "" {
			r.GPUResource = defaultGPUResource
		}
	}
	return r
}

// scheduling merges the platform's GPU or CPU scheduling with the step's;
// the step wins for a node selector key, and tolerations add up.
func (lw *lowering) scheduling(st *spec.Step, s *ir.Step, gpu bool) {
	s.NodeSelector, s.Tolerations = lw.placement(st, gpu)
	s.SecurityContext = mergeSecurity(lw.plat.SecurityContext, st.SecurityContext)
	lw.checkRootContradiction(st, s.SecurityContext)
}

// checkRootContradiction refuses runAsUser 0 with runAsNonRoot true: the
// kubelet refuses to start such a container (verifyRunAsNonRoot,
// pkg/kubelet/kuberuntime/security_context_others.go), so the step's pod
// would stay in CreateContainerConfigError. Said at runAsUser, the
// step's or, if it has none, the platform's.
func (lw *lowering) checkRootContradiction(st *spec.Step, sc *ir.SecurityContext) {
	if sc == nil || sc.RunAsUser == nil || *sc.RunAsUser != 0 || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot {
		return
	}
	at := lw.plat.Loc
	if st.SecurityContext != nil && st.SecurityContext.RunAsUser != nil {
		at = st.Loc
	}
	lw.errorf(at.Field("securityContext").Field("runAsUser"), "runAsUser 0 is root, and with runAsNonRoot: true the kubelet refuses to start the container (CreateContainerConfigError); give a non-zero runAsUser, or leave runAsUser out to run as the image's own non-root user")
}

// placement merges the platform's GPU or CPU node selector and
// tolerations with the step's; package check has checked them.
func (lw *lowering) placement(st *spec.Step, gpu bool) (map[string]string, []ir.Toleration) {
	base := lw.plat.CPU
	if gpu {
		base = lw.plat.GPU.Scheduling
	}
	sel := map[string]string{}
	for k, v := range base.NodeSelector {
		sel[k] = v
	}
	for k, v := range st.NodeSelector {
		sel[k] = v
	}
	if len(sel) == 0 {
		sel = nil
	}
	var tols []ir.Toleration
	seen := map[spec.Toleration]bool{}
	for _, t := range append(append([]spec.Toleration{}, base.Tolerations...), st.Tolerations...) {
		key := t
		key.TolerationSeconds = nil
		if seen[key] {
			continue
		}
		seen[key] = true
		tols = append(tols, ir.Toleration{Key: t.Key, Operator: t.Operator, Value: t.Value, Effect: t.Effect, TolerationSeconds: t.TolerationSeconds})
	}
	return sel, tols
}

// mergeSecurity lays the step's security settings over the platform's.
func mergeSecurity(base, over *spec.SecurityContext) *ir.SecurityContext {
	if base == nil && over == nil {
		return nil
	}
	out := &ir.SecurityContext{}
	for _, sc := range []*spec.SecurityContext{base, over} {
		if sc == nil {
			continue
		}
		if sc.RunAsUser != nil {
			out.RunAsUser = sc.RunAsUser
		}
		if sc.RunAsGroup != nil {
			out.RunAsGroup = sc.RunAsGroup
		}
		if sc.FSGroup != nil {
			out.FSGroup = sc.FSGroup
		}
		if sc.RunAsNonRoot != nil {
			out.RunAsNonRoot = sc.RunAsNonRoot
		}
	}
	return out
}
