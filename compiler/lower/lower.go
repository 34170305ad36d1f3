package lower

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/compiler/spec"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// Defaults that match the MLCube Kubernetes runner and PRODUCT.md.
const (
	defaultMountPath   = "/mnt/mlcube"
	defaultGPUResource = "nvidia.com/gpu"
	defaultClaimSize   = "10Gi"
	workspaceVolume    = "workspace"
	legacyMountRoot    = "/mnt/mlcube"
)

// reservedPaths are mounted by the kubelet, the runtime or an engine; the
// workspace cannot go there.
var reservedPaths = []string{"/dev", "/proc", "/sys", "/tekton", "/var/run/secrets"}

// lowering holds what the whole pipeline shares while its steps are lowered.
type lowering struct {
	spec      *spec.Pipeline
	plat      *spec.Platform
	diags     diag.Diagnostics
	params    map[string]bool
	mountPath string
	p         *ir.Pipeline
	volumes   map[string]ir.Volume
	ws        ir.Volume
	// claimVolumes maps a legacy binding's claim to its volume's name.
	claimVolumes map[string]string
	volumeNames  *nameSet
	templates    *nameSet
	tmplNames    map[string]string // cube file + task -> template name
	// needValues, when set, says why every param needs a value now.
	needValues string
	// noParams, when set, names the kind of job whose manifest the step
	// becomes: parameter references are refused there.
	noParams string
}

// Lower checks the specs against each other and builds the IR; nil
// when there are errors.
func Lower(ps *spec.Pipeline, plat *spec.Platform, needValues string) (*ir.Pipeline, diag.Diagnostics) {
	lw := newLowering(ps, plat, needValues)
	steps, io := lw.lowerSteps()
	if len(steps) == len(ps.Steps) {
		lw.order(steps, io)
		lw.claimAccess()
	}
	if lw.diags.HasErrors() {
		return nil, lw.diags
	}
	for _, name := range slices.Sorted(maps.Keys(lw.volumes)) {
		lw.p.Volumes = append(lw.p.Volumes, lw.volumes[name])
	}
	lw.scheduledConcurrency()
	return lw.p, lw.diags
}

func (lw *lowering) errorf(at diag.Loc, format string, args ...any) {
	lw.diags = append(lw.diags, diag.Errorf(at, format, args...))
}

func (lw *lowering) warnf(at diag.Loc, format string, args ...any) {
	lw.diags = append(lw.diags, diag.Warnf(at, format, args...))
}

// newLowering lowers what the whole pipeline shares, before its steps:
// the mount path, name, workspace, params, configs and schedule.
func newLowering(ps *spec.Pipeline, plat *spec.Platform, needValues string) *lowering {
	lw := &lowering{
		spec: ps, plat: plat, needValues: needValues,
		params: map[string]bool{}, volumes: map[string]ir.Volume{},
		templates: newNameSet(), tmplNames: map[string]string{},
		claimVolumes: map[string]string{}, volumeNames: newNameSet(workspaceVolume),
		mountPath: plat.Storage.MountPath,
	}
	if lw.mountPath == "" {
		lw.mountPath = defaultMountPath
	}
	for _, r := range reservedPaths {
		if lw.mountPath == r || strings.HasPrefix(lw.mountPath, r+"/") {
			lw.errorf(plat.Loc.Field("storage").Field("mountPath"), "%s is inside %s, which the container runtime or an engine mounts itself; use a path such as /mnt/mlcube", lw.mountPath, r)
		}
	}
	lw.p = &ir.Pipeline{
		Source:                  ps.File,
		Spec:                    ps.Loc,
		Platform:                plat.Loc,
		ServiceAccountName:      plat.ServiceAccountName,
		JobServiceAccountName:   plat.JobServiceAccount,
		LimitsEqualRequests:     plat.LimitsEqual,
		ImagePullSecrets:        plat.ImagePullSecrets,
		TTLSecondsAfterFinished: plat.TTLSeconds,
		KubectlImage:            plat.KubectlImage,
	}
	if lw.p.KubectlImage == "" {
		lw.p.KubectlImage = defaultKubectlImage
	}
	lw.pipelineMeta()
	lw.ws = lw.workspaceSpec()
	lw.lowerParams()
	lw.lowerConfigs()
	lw.lowerSchedule()
	return lw
}

// cubes returns the distinct cubes the steps use, in step order.
func (lw *lowering) cubes() []*spec.Cube {
	var out []*spec.Cube
	seen := map[*spec.Cube]bool{}
	for _, st := range lw.spec.Steps {
		if st.Cube != nil && !seen[st.Cube] {
			seen[st.Cube] = true
			out = append(out, st.Cube)
		}
	}
	return out
}

// pipelineMeta sets the name, namespace and labels.
func (lw *lowering) pipelineMeta() {
	name := lw.spec.Name
	cubes := lw.cubes()
	if name == "" && len(cubes) > 0 {
		name = cubes[0].Name
	}
	lw.p.Name = dnsName(name, maxNameLen)
	if full := dnsName(name, len(name)); full != lw.p.Name && lw.spec.Name != "" && lw.spec.Loc.Field("name").Written() {
		lw.warnf(lw.spec.Loc.Field("name"), "%q is cut to %q: names stay within %d characters so that every engine's suffixes fit", full, lw.p.Name, maxNameLen)
	}
	if lw.p.Name == "" {
		lw.errorf(diag.At(diag.Pos{File: lw.spec.File, Line: 1, Col: 1}).Field("name"), "%q has no letters or digits to make a Kubernetes name from", name)
	}
	lw.p.Namespace = lw.plat.Namespace
	if lw.p.Namespace == "" && len(cubes) == 1 {
		lw.p.Namespace = cubes[0].K8s.Namespace
	}
	lw.p.Labels = map[string]string{
		"app.kubernetes.io/name":    lw.p.Name,
		"app.kubernetes.io/part-of": "mlcube-compile",
	}
}

// lowerParams turns pipeline params into IR params.
func (lw *lowering) lowerParams() {
	for _, pp := range lw.spec.Params {
		if !paramName.MatchString(pp.Name) {
			lw.errorf(pp.Loc, "a parameter name is letters, digits, '_' and '-', starting with a letter")
			continue
		}
		// The default is reported at the param, where it may be missing.
		value := pp.Loc.Field("default").At(pp.Loc.Pos())
		if pp.Given != nil {
			value = pp.Given.Loc
		}
		switch {
		case pp.Required && pp.Default != nil && pp.Given == nil:
			lw.errorf(pp.Loc, "a required parameter has no default; drop one of required and default")
		case pp.Default == nil && lw.needValues != "":
			lw.errorf(pp.Loc, "has no value, and %s; give it one with --set %s=VALUE or -f VALUES.yaml", lw.needValues, pp.Name)
		}
		if pp.Default != nil && len(pp.Enum) > 0 && !slices.Contains(pp.Enum, *pp.Default) {
			lw.errorf(value, "%q is not one of the enum values of params.%s (%s)", *pp.Default, pp.Name, strings.Join(pp.Enum, ", "))
		}
		if more := spec.CheckParamCredential(pp.Name, "", pp.Loc); more != nil {
			lw.diags = append(lw.diags, more...)
		} else {
			lw.diags = append(lw.diags, spec.CheckCredential("", deref(pp.Default), value)...)
		}
		if strings.Contains(deref(pp.Default), "$$") {
			lw.errorf(value, "holds \"$$\", which Kubernetes turns into \"$\" once the engine puts the value into a container's args or env")
		}
		lw.params[pp.Name] = true
		lw.p.Params = append(lw.p.Params, ir.Param{Name: pp.Name, Description: pp.Description, Default: pp.Default, Enum: pp.Enum})
	}
}

// workspace returns the workspace volume, recording it on first use.
func (lw *lowering) workspace() string {
	lw.volumes[workspaceVolume] = lw.ws
	return workspaceVolume
}

// workspaceSpec decides the workspace claim: an existing one (the
// platform's storage.pvc, else the cube's k8s.pvc, else the pipeline's
// name) or one created per run. It is checked even when no step mounts it.
func (lw *lowering) workspaceSpec() ir.Volume {
	st := lw.plat.Storage
	create := st.Size != nil || st.StorageClassName != "" || len(st.AccessModes) > 0
	v := ir.Volume{Name: workspaceVolume}
	switch {
	case create && st.PVC != "":
		lw.errorf(lw.plat.Loc.Field("storage").Field("pvc"), "pvc names an existing claim, while size, storageClassName and accessModes describe one to create; give one or the other")
	case create:
		size := defaultClaimSize
		if st.Size != nil {
			size = lw.quantity(fmt.Sprint(st.Size), lw.plat.Loc.Field("storage").Field("size"))
		}
		// The access modes are decided once the steps are ordered.
		v.Create = &ir.ClaimTemplate{Size: size, StorageClassName: st.StorageClassName, AccessModes: st.AccessModes}
	default:
		v.ClaimName = st.PVC
		if cubes := lw.cubes(); v.ClaimName == "" && len(cubes) == 1 {
			v.ClaimName = cubes[0].K8s.PVC
		}
		if v.ClaimName == "" {
			v.ClaimName = lw.p.Name
		}
	}
	return v
}

// claimVolume returns the volume for a claim a legacy binding names; the
// MLCube runner mounts each at /mnt/mlcube/<pvc>.
func (lw *lowering) claimVolume(claim string, at diag.Loc) (string, string) {
	root := legacyMountRoot + "/" + claim
	if name, ok := lw.claimVolumes[claim]; ok {
		return name, root
	}
	if !dnsSubdomain.MatchString(claim) {
		lw.errorf(at, "%q is not a valid PersistentVolumeClaim name (lower case letters, digits, '-' and '.')", claim)
	}
	name, _ := lw.volumeNames.take(claim, claim, "pvc-"+claim)
	lw.claimVolumes[claim] = name
	lw.volumes[name] = ir.Volume{Name: name, ClaimName: claim}
	return name, root
}

// quantity checks a Kubernetes quantity and returns it as written.
func (lw *lowering) quantity(s string, at diag.Loc) string {
	if !nonNegativeQuantity(s) {
		lw.errorf(at, "%q is not a non-negative Kubernetes quantity (such as 500m, 4, 512Mi or 10Gi)", s)
		return ""
	}
	return s
}
