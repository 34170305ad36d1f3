package lower

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/spec"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// upload is an output of a step of the run, by the workspace path it is.
type upload struct {
	step, name, rel string
}

// objectWorkspaceSpec is the workspace of storage.workspace object: a
// volume each pod has of its own, an emptyDir, or a generic ephemeral
// volume when the platform gives its size or storage class. The claim
// storage.pvc names holds the inputs no step writes.
func (lw *lowering) objectWorkspaceSpec(st spec.Storage, at diag.Loc) ir.Volume {
	if lw.p.ObjectStore == nil {
		lw.diags = append(lw.diags, diag.Errorf(diag.NoObjectStore, at.Field("workspace"),
			"workspace: object uploads each step's outputs to an object store, and the platform names none").
			WithFix("add objectStore, with s3's endpoint, bucket and Secret keys (or, on Argo, artifactRepositoryRef)"))
	}
	if len(st.AccessModes) > 0 {
		lw.diags = append(lw.diags, diag.Errorf(diag.BadClaim, at.Field("accessModes"),
			"with workspace: object every pod has a volume of its own, which only it mounts; leave accessModes out"))
	}
	v := ir.Volume{Name: workspaceVolume, PerPod: true}
	if st.Size != nil || st.StorageClassName != "" {
		size := defaultClaimSize
		if st.Size != nil {
			var diags diag.Diagnostics
			size, diags = quantity(fmt.Sprint(st.Size), at.Field("size"))
			lw.diags = append(lw.diags, diags...)
		}
		v.Ephemeral = &ir.ClaimTemplate{Size: size, StorageClassName: st.StorageClassName,
			AccessModes: []string{readWriteOnce}}
		lw.sized = v.Ephemeral
	}
	if st.PVC != "" {
		lw.dataClaim, _ = lw.volumeNames.take(st.PVC, "data", st.PVC)
	}
	return v
}

// objectFlow gives each step of an object workspace its fetches and
// uploads, once the steps are ordered: every path a step writes is
// uploaded when it ends, and every path it reads is fetched from the
// uploads of the earlier steps that write it (path flow has ordered
// them first), or mounted read-only from storage.pvc's claim when no
// step writes it.
func (lw *lowering) objectFlow(st spec.Storage) {
	if !st.Object() {
		return
	}
	var written []upload
	fetched := map[ir.Output]bool{}
	for _, s := range lw.p.Steps {
		d := lw.data[s.Name]
		if d == nil || len(d.paths) == 0 {
			continue
		}
		if s.Kind != ir.Container {
			lw.diags = append(lw.diags, diag.Errorf(diag.NeedsClaim, s.Loc,
				"step %q runs as a distributed job, whose pods need a claim to share the workspace while they run",
				s.Written).
				WithFix("use storage.workspace: claim, with a ReadWriteMany claim"))
			continue
		}
		for _, r := range d.paths {
			if !r.write {
				lw.fetchRead(s, d, r, written, fetched, st.PVC)
			}
		}
		written = append(written, lw.uploads(s, d)...)
	}
	for _, s := range lw.p.Steps {
		for i, u := range s.Uploads {
			s.Uploads[i].Final = !fetched[ir.Output{Step: s.Name, Name: u.Name}]
		}
	}
}

// uploads gives step s an upload of each workspace path it writes.
func (lw *lowering) uploads(s *ir.Step, d *stepData) []upload {
	var out []upload
	seen := map[string]bool{}
	for _, w := range d.paths {
		if !w.write || seen[w.rel] {
			continue
		}
		seen[w.rel] = true
		name, _ := d.names.take(w.param, w.param, "output")
		s.Uploads = append(s.Uploads, ir.Upload{Name: name, Path: w.seen, Folder: w.folder})
		out = append(out, upload{step: s.Name, name: name, rel: w.rel})
	}
	return out
}

// fetchRead fetches what step s reads at r from the uploads of earlier
// steps that write it, in their order, or mounts it from the data claim.
func (lw *lowering) fetchRead(s *ir.Step, d *stepData, r dataPath, written []upload, fetched map[ir.Output]bool,
	pvc string) {
	found := false
	for _, u := range written {
		if !overlaps(u.rel, r.rel) {
			continue
		}
		found = true
		f := ir.Fetch{From: &ir.Output{Step: u.step, Name: u.name}, Path: r.seen}
		if r.rel == "" || strings.HasPrefix(u.rel+"/", r.rel+"/") {
			f.Path = lw.refs.join(r.seen, inside(r.rel, u.rel))
		} else {
			f.Sub = inside(u.rel, r.rel)
		}
		f.Name, _ = d.names.take(u.step+"-"+u.name, u.step+"-"+u.name, "input")
		s.Fetches = append(s.Fetches, f)
		fetched[*f.From] = true
	}
	if !found {
		lw.claimRead(s, r, pvc)
	}
}

// claimRead mounts an input no step writes from storage.pvc's claim, pvc,
// read-only where the step reads it; without that claim it is refused.
func (lw *lowering) claimRead(s *ir.Step, r dataPath, pvc string) {
	switch {
	case lw.dataClaim == "" && r.mount >= 0 && !r.folder:
		// A MedPerf file volume is mounted by itself when the pod
		// starts, before any fetch: a URL cannot fill it (urlVolume).
		lw.diags = append(lw.diags, diag.Errorf(diag.NeedsClaim, r.at,
			"with storage.workspace: object, no earlier step writes %q, so no upload holds it", r.rel).
			WithFix("name the claim that holds it in the platform's storage.pvc").
			WithDetail("A file volume (%s) takes no URL: it is mounted by itself when the pod starts, before any fetch.",
				r.param))
		return
	case lw.dataClaim == "":
		lw.diags = append(lw.diags, diag.Errorf(diag.NeedsClaim, r.at,
			"with storage.workspace: object, no earlier step writes %q, so no upload holds it", cmp.Or(r.rel, "the workspace")).
			WithFix(fmt.Sprintf("give it as a URL %s, or name the claim that holds it in the platform's storage.pvc",
				lw.whereURL(s, r.param))))
		return
	case r.rel == "" || strings.Contains(r.rel, "${"):
		lw.diags = append(lw.diags, diag.Errorf(diag.NeedsClaim, r.at,
			"with storage.workspace: object, %q is mounted from storage.pvc's claim, which needs a literal path below the "+
				"workspace", cmp.Or(r.rel, "the workspace")).
			WithDetail("The claim is mounted at a literal folder or file below the workspace: not the workspace itself, "+
				"nor a path with a ${...} reference in it."))
		return
	}
	lw.volumes[lw.dataClaim] = ir.Volume{Name: lw.dataClaim, ClaimName: pvc}
	if r.mount >= 0 {
		s.Mounts[r.mount].Volume, s.Mounts[r.mount].ReadOnly = lw.dataClaim, true
		return
	}
	mp := lw.mountPath + "/" + r.rel
	for _, m := range s.Mounts {
		if m.MountPath == mp {
			return
		}
	}
	s.Mounts = append(s.Mounts, ir.Mount{Volume: lw.dataClaim, MountPath: mp, SubPath: ir.Lit(r.rel), ReadOnly: true})
}

// whereURL says where the input param of step s is given as a URL: with
// no pipeline file, NAME=URL on the command line (spec.SetPaths); in a
// pipeline, the step's inputs:.
func (lw *lowering) whereURL(s *ir.Step, param string) string {
	switch {
	case param == "":
		return "(s3://bucket/key or https://…)"
	case lw.spec.FromCube:
		return fmt.Sprintf("on the command line (%s=s3://bucket/key, or %s=https://…)", param, param)
	}
	return fmt.Sprintf("in step %s's inputs (%s: s3://bucket/key, or https://…)", s.Written, param)
}
