package lower

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/spec"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// resources merges the requests of the resources mapping res, written
// at at (a step's resources, or an MPI launcher's or Dask workers'
// override) under owner, over what the cube's docker flags say; a
// quantity that is not one is refused and left out.
func (lw *lowering) resources(res spec.Resources, at, owner diag.Loc, gpus int, fx spec.DockerEffects) ir.Resources {
	r := ir.Resources{GPU: gpus, CPU: fx.CPU, Memory: fx.Memory, LimitsEqualRequests: lw.plat.LimitsEqual}
	var diags diag.Diagnostics
	if res.CPU != nil {
		r.CPU, diags = quantity(fmt.Sprint(res.CPU), at.Field("cpu"))
		lw.diags = append(lw.diags, diags...)
	}
	if res.Memory != nil {
		r.Memory, diags = quantity(fmt.Sprint(res.Memory), at.Field("memory"))
		lw.diags = append(lw.diags, diags...)
	}
	if r.LimitsEqualRequests && (r.CPU == "" || r.Memory == "") {
		// Said at the owner, which may not write resources.
		lw.diags = append(lw.diags, diag.Warnf(diag.LimitWithoutRequest, at.At(owner.Pos()),
			"the platform sets limitsEqualRequests, but this requests no cpu or no memory, so it gets no limit for it").
			WithFix("give it both cpu and memory").
			WithDetail("A ResourceQuota that counts limits rejects a pod without them."))
	}
	lw.diags = append(lw.diags, checkDeviceFields(res.DeviceRequest, at)...)
	lw.use.askedGPU = lw.use.askedGPU || gpus > 0
	if gpus == 0 {
		lw.diags = append(lw.diags, checkUnasked(res, at)...)
		return r
	}
	r.GPUClaim, diags = lw.gpus.claim(res, at, gpus)
	lw.diags = append(lw.diags, diags...)
	if r.GPUClaim == nil {
		r.GPUResource = lw.plat.GPU.Resource
		if r.GPUResource == "" {
			r.GPUResource = defaultGPUResource
		}
	}
	return r
}

// gpusFromCube warns, once per step, of a step that sets resources
// without gpu: and so takes the GPUs its cube asks for every task, and
// the GPU nodes' placement with them, though it may well run on CPU.
func gpusFromCube(st *spec.Step, gpus int) diag.Diagnostics {
	var diags diag.Diagnostics
	res := st.Resources
	if gpus == 0 || res.GPU != nil || res.CPU == nil && res.Memory == nil || res.DeviceRequest != (spec.DeviceRequest{}) {
		// A step that asks for devices by DRA says it wants GPUs.
		return nil
	}
	from := "platform.accelerator_count of cube " + st.Cube.Name
	if st.Task.Run != nil {
		from = "the gpus of task " + st.Task.Name + "'s run_args"
	}
	count := "1 GPU"
	if gpus > 1 {
		count = fmt.Sprintf("%d GPUs", gpus)
	}
	diags = append(diags, diag.Warnf(diag.GPUsFromCube, st.Loc.Field("resources"),
		"sets cpu or memory but no gpu, so the step takes %s from %s, with the platform's GPU placement", count, from).
		WithFix(fmt.Sprintf("set gpu: 0 if it runs on CPU, or gpu: %d to say it needs them", gpus)))
	return diags
}

// noteGPUFlag says, once per flag, how many GPUs a cube's --gpus flag
// makes its tasks ask for (spec.GPUFlag), unless the step says it.
func (sl *stepLowering) noteGPUFlag() {
	st := sl.st
	g := st.Cube.GPUFlag
	if g == nil || st.Resources.GPU != nil || st.Task.Run != nil || sl.noted[g.Loc.String()] {
		return
	}
	if sl.noted == nil {
		sl.noted = map[string]bool{}
	}
	sl.noted[g.Loc.String()] = true
	count := "no GPUs"
	switch {
	case g.Count == 1:
		count = "1 GPU"
	case g.Count > 1:
		count = fmt.Sprintf("%d GPUs", g.Count)
	}
	sl.diags = append(sl.diags, diag.Notef(diag.GPUsFromFlag, g.Loc,
		"each task of cube %s asks for %s: %s; a step's resources.gpu, or --gpus=N here, "+
			"sets another count", st.Cube.Name, count, g.Why))
}

// scheduling merges the platform's GPU or CPU scheduling with the step's;
// the step wins for a node selector key, and tolerations add up.
func (sl *stepLowering) scheduling(s *ir.Step, gpu bool) {
	s.NodeSelector, s.Tolerations = sl.placement(gpu)
	s.SecurityContext = mergeSecurity(sl.plat.SecurityContext, sl.st.SecurityContext)
	sl.diags = append(sl.diags, checkRootContradiction(sl.st, sl.plat, s.SecurityContext)...)
	sl.diags = append(sl.diags, restrict(sl.st, sl.plat, s)...)
}

// restrict gives step s runAsNonRoot when the platform's podSecurity is
// restricted, which admits no pod that may run as root (runAsNonRoot,
// policy/check_runAsNonRoot.go and check_runAsUser.go of
// k8s.io/pod-security-admission v0.36.6), and refuses a step that says
// it runs as root: runAsNonRoot false, or runAsUser 0 (with
// runAsNonRoot true, MLC353 says it), said at the step's field or, where
// it writes none, the platform's.
func restrict(st *spec.Step, plat *spec.Platform, s *ir.Step) diag.Diagnostics {
	var diags diag.Diagnostics
	if plat.PodSecurity != ir.PodSecurityRestricted {
		return nil
	}
	if s.SecurityContext == nil {
		s.SecurityContext = &ir.SecurityContext{}
	}
	sc := s.SecurityContext
	at := func(field string, set func(*spec.SecurityContext) bool) diag.Loc {
		if st.SecurityContext != nil && set(st.SecurityContext) {
			return st.Loc.Field("securityContext").Field(field)
		}
		return plat.Loc.Field("securityContext").Field(field)
	}
	if sc.RunAsNonRoot != nil && !*sc.RunAsNonRoot {
		diags = append(diags, diag.Errorf(diag.RunsAsRoot,
			at("runAsNonRoot", func(c *spec.SecurityContext) bool { return c.RunAsNonRoot != nil }),
			"podSecurity is restricted, which admits no pod with runAsNonRoot: false").
			WithFix("drop it, and give a step whose image runs as root a non-zero runAsUser"))
	}
	if sc.RunAsUser != nil && *sc.RunAsUser == 0 && (sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot) {
		diags = append(diags, diag.Errorf(diag.RunsAsRoot,
			at("runAsUser", func(c *spec.SecurityContext) bool { return c.RunAsUser != nil }),
			"podSecurity is restricted, which admits no pod with runAsUser: 0 (root)").
			WithFix("give a non-zero runAsUser, or leave it out to run as the image's own non-root user"))
	}
	nonRoot := true
	sc.RunAsNonRoot = &nonRoot
	return diags
}

// checkRootContradiction refuses runAsUser 0 with runAsNonRoot true: the
// kubelet refuses to start such a container (verifyRunAsNonRoot,
// pkg/kubelet/kuberuntime/security_context_others.go), so the step's pod
// would stay in CreateContainerConfigError. Said at runAsUser, the
// step's or, if it has none, the platform's.
func checkRootContradiction(st *spec.Step, plat *spec.Platform, sc *ir.SecurityContext) diag.Diagnostics {
	var diags diag.Diagnostics
	if sc == nil || sc.RunAsUser == nil || *sc.RunAsUser != 0 || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot {
		return nil
	}
	at := plat.Loc
	if st.SecurityContext != nil && st.SecurityContext.RunAsUser != nil {
		at = st.Loc
	}
	diags = append(diags, diag.Errorf(diag.RootConflict, at.Field("securityContext").Field("runAsUser"),
		"runAsUser 0 is root, and with runAsNonRoot: true the kubelet refuses to start the container").
		WithFix("give a non-zero runAsUser, or leave runAsUser out to run as the image's own non-root user").
		WithDetail("The container then stays in CreateContainerConfigError."))
	return diags
}

// placement merges the platform's GPU or CPU node selector and
// tolerations with the step's, checking the keys and tolerations of
// both.
func (sl *stepLowering) placement(gpu bool) (map[string]string, []ir.Toleration) {
	st := sl.st
	base, section := sl.plat.CPU, sl.plat.Loc.Field("cpu")
	if gpu {
		base, section = sl.plat.GPU.Scheduling, sl.plat.Loc.Field("gpu")
		sl.use.placed[1] = true
	} else {
		sl.use.placed[0] = true
	}
	sel := map[string]string{}
	for k, v := range base.NodeSelector {
		sl.diags = append(sl.diags, labelKey(k, section.Field("nodeSelector").Field(k))...)
		sel[k] = v
	}
	for k, v := range st.NodeSelector {
		sl.diags = append(sl.diags, labelKey(k, st.Loc.Field("nodeSelector").Field(k))...)
		sel[k] = v
	}
	sl.diags = append(sl.diags, tolerations(base.Tolerations, section.Field("tolerations"))...)
	sl.diags = append(sl.diags, tolerations(st.Tolerations, st.Loc.Field("tolerations"))...)
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
		tols = append(tols, ir.Toleration{Key: t.Key, Operator: t.Operator, Value: t.Value, Effect: t.Effect,
			TolerationSeconds: t.TolerationSeconds})
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

// labelKey checks a node selector key, which is a Kubernetes label key.
func labelKey(k string, at diag.Loc) diag.Diagnostics {
	if len(validation.IsQualifiedName(k)) > 0 {
		return diag.Diagnostics{diag.Errorf(diag.BadPlacement, at, "%q is not a valid label key", k).
			WithDetail("A label key is an optional DNS prefix and '/', then at most 63 letters, digits, '-', '_' or '.', " +
				"starting and ending with a letter or digit.")}
	}
	return nil
}

// tolerations checks each toleration of the list at, reported at the
// list, as the API server checks a toleration.
func tolerations(tols []spec.Toleration, list diag.Loc) diag.Diagnostics {
	var diags diag.Diagnostics
	for i, t := range tols {
		at := list.Index(i).At(list.Pos())
		switch {
		case t.Key != "" && len(validation.IsQualifiedName(t.Key)) > 0:
			diags = append(diags, diag.Errorf(diag.BadPlacement, at.Field("key"),
				"%q is not a valid taint key (an optional DNS prefix and '/', then letters, digits, '-', '_' or '.')", t.Key))
		case t.Key == "" && t.Operator != "Exists":
			diags = append(diags, diag.Errorf(diag.BadPlacement, at.Field("key"),
				"a toleration without a key must have operator: Exists"))
		case t.Operator == "Exists" && t.Value != "":
			diags = append(diags, diag.Errorf(diag.BadPlacement, at.Field("value"),
				"a toleration with operator: Exists has no value"))
		case t.Value != "" && len(validation.IsValidLabelValue(t.Value)) > 0:
			diags = append(diags, diag.Errorf(diag.BadPlacement, at.Field("value"),
				"%q is not a valid taint value (at most 63 letters, digits, '-', '_' or '.')", t.Value))
		case t.TolerationSeconds != nil && t.Effect != "NoExecute":
			diags = append(diags, diag.Errorf(diag.BadPlacement, at.Field("tolerationSeconds"),
				"tolerationSeconds needs effect: NoExecute"))
		}
	}
	return diags
}
