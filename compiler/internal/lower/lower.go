package lower

import (
	"fmt"
	"maps"
	"slices"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/spec"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
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
}

// Lower builds the IR from the decoded specs, reporting what they get
// wrong where it reads them. Lowering is total: it returns a pipeline
// whatever the specs say (a step it cannot name gets a stand-in, a cycle
// leaves the steps in written order), and package verify checks what
// needs the lowered pipeline.
func Lower(ps *spec.Pipeline, plat *spec.Platform) (*ir.Pipeline, diag.Diagnostics) {
	lw := newLowering(ps, plat)
	steps, io := lw.lowerSteps()
	lw.listOrder(io)
	lw.order(steps, io)
	lw.claimAccess()
	for _, name := range slices.Sorted(maps.Keys(lw.volumes)) {
		lw.p.Volumes = append(lw.p.Volumes, lw.volumes[name])
	}
	lw.scheduledConcurrency()
	return lw.p, lw.diags
}

func (lw *lowering) errorf(at diag.Loc, format string, args ...any) {
	lw.diags = append(lw.diags, diag.Errorf(at, format, args...))
}

func (lw *lowering) warnf(code diag.Code, at diag.Loc, format string, args ...any) {
	lw.diags = append(lw.diags, diag.Warnf(code, at, format, args...))
}

// newLowering lowers what the whole pipeline shares, before its steps:
// the mount path, name, workspace, params, configs and schedule.
func newLowering(ps *spec.Pipeline, plat *spec.Platform) *lowering {
	lw := &lowering{
		spec: ps, plat: plat,
		params: map[string]bool{}, volumes: map[string]ir.Volume{},
		templates: newNameSet(), tmplNames: map[string]string{},
		claimVolumes: map[string]string{}, volumeNames: newNameSet(workspaceVolume),
		mountPath: plat.Storage.MountPath,
	}
	if lw.mountPath == "" {
		lw.mountPath = defaultMountPath
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
		Coschedule:              plat.Tekton.Coschedule,
	}
	if lw.p.KubectlImage == "" {
		lw.p.KubectlImage = defaultKubectlImage
	}
	if lw.p.Coschedule == "" {
		lw.p.Coschedule = defaultCoschedule
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
	lw.p.Name, lw.p.Written = ir.DNSName(name, ir.MaxNameLen), name
	lw.p.Namespace = lw.plat.Namespace
	if lw.p.Namespace == "" && len(cubes) == 1 {
		lw.p.Namespace = cubes[0].K8s.Namespace
	}
	lw.p.Labels = map[string]string{
		"app.kubernetes.io/name":    lw.p.Name,
		"app.kubernetes.io/part-of": "mlcube-compile",
	}
}

// lowerParams turns pipeline params into IR params; package check has
// checked them.
func (lw *lowering) lowerParams() {
	for _, pp := range lw.spec.Params {
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
// name) or one created per run; package check refuses both at once.
func (lw *lowering) workspaceSpec() ir.Volume {
	st := lw.plat.Storage
	create := st.Size != nil || st.StorageClassName != "" || len(st.AccessModes) > 0
	v := ir.Volume{Name: workspaceVolume}
	switch {
	case create && st.PVC != "":
		// Neither: check has reported it.
	case create:
		size := defaultClaimSize
		if st.Size != nil {
			size = quantity(fmt.Sprint(st.Size))
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
func (lw *lowering) claimVolume(claim string) (string, string) {
	root := legacyMountRoot + "/" + claim
	if name, ok := lw.claimVolumes[claim]; ok {
		return name, root
	}
	name, _ := lw.volumeNames.take(claim, claim, "pvc-"+claim)
	lw.claimVolumes[claim] = name
	lw.volumes[name] = ir.Volume{Name: name, ClaimName: claim}
	return name, root
}

// quantity returns a Kubernetes quantity as written, or "" for one
// check refuses.
func quantity(s string) string {
	if !spec.NonNegativeQuantity(s) {
		return ""
	}
	return s
}
