package lower

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/compiler/spec"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// resources merges the step's requests over what the cube's docker flags say.
func (lw *lowering) resources(st *spec.Step, gpus int, fx dockerEffects) ir.Resources {
	r := ir.Resources{GPU: gpus, CPU: fx.cpu, Memory: fx.memory, LimitsEqualRequests: lw.plat.LimitsEqual}
	if st.Resources.CPU != nil {
		r.CPU = lw.quantity(fmt.Sprint(st.Resources.CPU), st.Loc.Field("resources").Field("cpu"))
	}
	if st.Resources.Memory != nil {
		r.Memory = lw.quantity(fmt.Sprint(st.Resources.Memory), st.Loc.Field("resources").Field("memory"))
	}
	if r.LimitsEqualRequests && (r.CPU == "" || r.Memory == "") {
		// Said at the step, which may not write resources.
		lw.warnf(st.Loc.Field("resources").At(st.Loc.Pos()), "the platform sets limitsEqualRequests, but this requests no cpu or no memory, so it gets no limit for it, and a ResourceQuota that counts limits rejects its pod; give resources.cpu and resources.memory")
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
}

// placement merges the platform's GPU or CPU node selector and
// tolerations with the step's.
func (lw *lowering) placement(st *spec.Step, gpu bool) (map[string]string, []ir.Toleration) {
	base, section := lw.plat.CPU, lw.plat.Loc.Field("cpu")
	if gpu {
		base, section = lw.plat.GPU.Scheduling, lw.plat.Loc.Field("gpu")
	}
	sel := map[string]string{}
	for k, v := range base.NodeSelector {
		lw.labelKey(k, section.Field("nodeSelector").Field(k))
		sel[k] = v
	}
	for k, v := range st.NodeSelector {
		lw.labelKey(k, st.Loc.Field("nodeSelector").Field(k))
		sel[k] = v
	}
	if len(sel) == 0 {
		sel = nil
	}
	lw.tolerations(base.Tolerations, section.Field("tolerations"))
	lw.tolerations(st.Tolerations, st.Loc.Field("tolerations"))
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

// labelKey checks a node selector key, which is a Kubernetes label key.
func (lw *lowering) labelKey(k string, at diag.Loc) {
	if len(validation.IsQualifiedName(k)) > 0 {
		lw.errorf(at, "%q is not a valid label key: an optional DNS prefix and '/', then at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit", k)
	}
}

// tolerations checks each toleration of the list at, reported at the
// list.
func (lw *lowering) tolerations(tols []spec.Toleration, at diag.Loc) {
	for i, t := range tols {
		lw.toleration(t, at.Index(i).At(at.Pos()))
	}
}

// toleration checks what the API server checks of a toleration.
func (lw *lowering) toleration(t spec.Toleration, at diag.Loc) {
	switch {
	case t.Key != "" && len(validation.IsQualifiedName(t.Key)) > 0:
		lw.errorf(at.Field("key"), "%q is not a valid taint key (an optional DNS prefix and '/', then letters, digits, '-', '_' or '.')", t.Key)
	case t.Key == "" && t.Operator != "Exists":
		lw.errorf(at.Field("key"), "a toleration without a key must have operator: Exists")
	case t.Operator == "Exists" && t.Value != "":
		lw.errorf(at.Field("value"), "a toleration with operator: Exists has no value")
	case t.Value != "" && len(validation.IsValidLabelValue(t.Value)) > 0:
		lw.errorf(at.Field("value"), "%q is not a valid taint value (at most 63 letters, digits, '-', '_' or '.')", t.Value)
	case t.TolerationSeconds != nil && t.Effect != "NoExecute":
		lw.errorf(at.Field("tolerationSeconds"), "tolerationSeconds needs effect: NoExecute")
	}
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
