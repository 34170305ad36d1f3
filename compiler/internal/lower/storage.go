package lower

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/spec"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// reservedPaths are mounted by the kubelet, the runtime or an engine; the
// workspace cannot go there.
var reservedPaths = []string{"/dev", "/proc", "/sys", "/tekton", "/var/run/secrets"}

// mountPath is where the workspace is mounted: the platform's place
// (storage.mountPath, written at at), else where the MLCube Kubernetes
// runner mounts it; a place inside one the runtime or an engine mounts
// is refused.
func mountPath(written string, at diag.Loc) (string, diag.Diagnostics) {
	mp := cmp.Or(written, defaultMountPath)
	var diags diag.Diagnostics
	for _, r := range reservedPaths {
		if mp == r || strings.HasPrefix(mp, r+"/") {
			diags = append(diags, diag.Errorf(diag.ReservedPath, at,
				"%s is inside %s, which the container runtime or an engine mounts itself; use a path such as /mnt/mlcube",
				mp, r))
		}
	}
	return mp, diags
}

// workspace returns the workspace volume, recording it on first use.
func (lw *lowering) workspace() string {
	lw.volumes[workspaceVolume] = lw.ws
	return workspaceVolume
}

// workspaceSpec decides the workspace claim: an existing one (the
// platform's storage.pvc, else the cube's k8s.pvc, else the pipeline's
// name) or one created per run (size, storageClassName, accessModes),
// not both. The platform's storage is checked even when no step mounts
// the workspace.
func (lw *lowering) workspaceSpec(st spec.Storage, at diag.Loc) ir.Volume {
	if st.Object() {
		return lw.objectWorkspaceSpec(st, at)
	}
	create := st.Size != nil || st.StorageClassName != "" || len(st.AccessModes) > 0
	v := ir.Volume{Name: workspaceVolume}
	switch {
	case create && st.PVC != "":
		lw.diags = append(lw.diags, diag.Errorf(diag.BadClaim, at.Field("pvc"),
			"pvc names an existing claim, while size, storageClassName and accessModes describe one to create; give "+
				"one or the other"))
	case create:
		size := defaultClaimSize
		if st.Size != nil {
			var diags diag.Diagnostics
			size, diags = quantity(fmt.Sprint(st.Size), at.Field("size"))
			lw.diags = append(lw.diags, diags...)
		}
		// The access modes are decided once the steps are ordered.
		v.Create = &ir.ClaimTemplate{Size: size, StorageClassName: st.StorageClassName, AccessModes: st.AccessModes}
		if st.Size != nil || st.StorageClassName != "" {
			lw.sized = &ir.ClaimTemplate{Size: size, StorageClassName: st.StorageClassName, AccessModes: []string{readWriteOnce}}
		}
	default:
		v.ClaimName = st.PVC
		if cubes := cubes(lw.spec.Steps); v.ClaimName == "" && len(cubes) == 1 {
			v.ClaimName = cubes[0].K8s.PVC
		}
		if v.ClaimName == "" {
			v.ClaimName = lw.p.Name
		}
	}
	return v
}

// claimVolume returns the volume for the claim a legacy binding p names;
// the MLCube runner mounts each at /mnt/mlcube/<pvc>. A claim's name is
// checked once, where it is first used, against #DNSSubdomain's pattern.
func (lw *lowering) claimVolume(p *spec.Param) (string, string) {
	claim := p.Claim
	root := legacyMountRoot + "/" + claim
	if name, ok := lw.claimVolumes[claim]; ok {
		return name, root
	}
	if !spec.IsClaimName(claim) {
		lw.diags = append(lw.diags, diag.Errorf(diag.BadClaim, diag.At(p.Loc.Pos()).Field("k8s").Field("pvc"),
			"%q is not a valid PersistentVolumeClaim name (lower case letters, digits, '-' and '.')", claim))
	}
	name, _ := lw.volumeNames.take(claim, claim, "pvc-"+claim)
	lw.claimVolumes[claim] = name
	lw.volumes[name] = ir.Volume{Name: name, ClaimName: claim}
	return name, root
}

// quantity returns a Kubernetes quantity written at at, or "" for one
// that is not a non-negative quantity, which is refused.
func quantity(s string, at diag.Loc) (string, diag.Diagnostics) {
	if !spec.NonNegativeQuantity(s) {
		return "", diag.Diagnostics{diag.Errorf(diag.BadQuantity, at,
			"%q is not a non-negative Kubernetes quantity (such as 500m, 4, 512Mi or 10Gi)", s)}
	}
	return s, nil
}
