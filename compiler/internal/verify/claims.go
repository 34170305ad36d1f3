package verify

import (
	"slices"
	"strings"

	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// Access modes of a claim the run creates. A ReadWriteOnce volume
// attaches to one node at a time: pods of MPI jobs and TrainJobs land
// on several nodes (a Dask step mounts them in its client alone), and
// steps that run at the same time may too.
const (
	readWriteMany     = "ReadWriteMany"
	readOnlyMany      = "ReadOnlyMany"
	oneNodeAccessHint = "use ReadWriteMany (the default for such pipelines) on a storage class that offers it, such as " +
		"NFS, EFS, Filestore or CephFS"
)

// claims checks the access modes of each claim the run creates against
// the steps that mount it (ir.MountUse): modes the platform writes that
// no step can write through, or that attach to one node while a
// distributed step mounts the claim, are refused; ReadWriteMany chosen
// by lowering is warned about, as the storage class must offer it.
// Messages name the steps as written. With cyclic set, the steps are in
// no order, and the claims are checked as if no step mounted them.
func (v *verifier) claims(cyclic bool) {
	storage := v.p.Platform.Field("storage")
	for _, vol := range v.p.Volumes {
		c := vol.Create
		if c == nil {
			continue
		}
		distributed, pair := "", []string(nil)
		if !cyclic {
			distributed, pair = ir.MountUse(v.p.Steps, vol.Name)
		}
		distributed, pair = v.written(distributed), []string{v.written(nth(pair, 0)), v.written(nth(pair, 1))}
		switch {
		case c.Chosen && slices.Contains(c.AccessModes, readWriteMany) && (distributed != "" || pair[0] != ""):
			why := "step \"" + distributed + "\" runs pods on several nodes"
			if distributed == "" {
				why = "steps \"" + pair[0] + "\" and \"" + pair[1] + "\" may run at the same time on different nodes"
			}
			// Said at storage:, which may not write accessModes.
			v.warnf(diag.ClaimReadWriteMany, storage.Field("accessModes").At(storage.Pos()),
				"the claim made for each run is ReadWriteMany, since %s and all mount it; its storage class must offer "+
					"ReadWriteMany (NFS, EFS, Filestore, Azure Files, CephFS; not EBS, Persistent Disk or local-path, where the "+
					"claim would stay Pending): set storageClassName, or accessModes: [ReadWriteOnce] for steps that may wait for "+
					"each other's volume", why)
		case c.Chosen:
		case !slices.ContainsFunc(c.AccessModes, ir.Writable):
			v.errorf(diag.BadAccessModes, storage.Field("accessModes"),
				"%s: the claim made for each run starts empty, and no step could write to it; use ReadWriteOnce or "+
					"ReadWriteMany, or name a claim that holds the data to read with storage.pvc", strings.Join(c.AccessModes, ", "))
		case ir.OneNode(c.AccessModes) && distributed != "":
			m := c.AccessModes[0]
			v.errorf(diag.BadAccessModes, storage.Field("accessModes"),
				"%s: step %q runs pods on several nodes, which all mount the workspace, and a %s claim attaches to one node; %s", m,
				distributed, m, oneNodeAccessHint)
		}
	}
}

// written is the step named name as its spec writes it; "" for "".
func (v *verifier) written(name string) string {
	for _, s := range v.p.Steps {
		if s.Name == name && name != "" {
			return s.Written
		}
	}
	return ""
}

// nth is names[i], or "" when names is shorter.
func nth(names []string, i int) string {
	if i < len(names) {
		return names[i]
	}
	return ""
}
