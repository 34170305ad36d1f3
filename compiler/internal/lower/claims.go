package lower

import "github.com/mlcube-compile/mlcube-compile/compiler/ir"

// Access modes lowering chooses for a claim the run creates. A
// ReadWriteOnce volume attaches to one node at a time: pods of MPI and
// Dask jobs land on several nodes, and steps that run at the same time
// may too.
const (
	readWriteOnce = "ReadWriteOnce"
	readWriteMany = "ReadWriteMany"
)

// claimAccess decides the access modes of each claim the run creates,
// once the steps are ordered, by the steps that mount it (ir.MountUse):
// when the platform names none, ReadWriteMany if a distributed step
// mounts it or two steps that mount it may run at once, else
// ReadWriteOnce. Two steps that may share a one-node claim the platform
// names at once are recorded for the backends to warn about, as only
// Tekton's affinity assistant keeps such steps on one node. Package
// verify refuses the modes that cannot work.
func (lw *lowering) claimAccess() {
	for name, v := range lw.volumes {
		if v.Create == nil {
			continue
		}
		distributed, pair := ir.MountUse(lw.p.Steps, name)
		written := lw.plat.Storage.AccessModes
		switch {
		case len(written) == 0 && (distributed != "" || pair != nil):
			v.Create.AccessModes, v.Create.Chosen = []string{readWriteMany}, true
		case len(written) == 0:
			v.Create.AccessModes, v.Create.Chosen = []string{readWriteOnce}, true
		case ir.OneNode(written) && distributed == "" && pair != nil:
			v.Concurrent = pair
		}
		lw.volumes[name] = v
	}
}
