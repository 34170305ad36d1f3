package lower

import (
	"slices"
	"strings"

	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// Access modes of a claim the run creates. A ReadWriteOnce volume
// attaches to one node at a time: pods of MPI and Dask jobs land on
// several nodes, and steps that run at the same time may too.
const (
	readWriteOnce     = "ReadWriteOnce"
	readWriteOncePod  = "ReadWriteOncePod"
	readWriteMany     = "ReadWriteMany"
	readOnlyMany      = "ReadOnlyMany"
	oneNodeAccessHint = "use ReadWriteMany (the default for such pipelines) on a storage class that offers it, such as NFS, EFS, Filestore or CephFS"
)

// claimAccess decides the access modes of each claim the run creates,
// once the steps are ordered: ReadWriteMany by default when a
// distributed step mounts it or two steps that mount it may run at once,
// else ReadWriteOnce. A claim written ReadWriteOnce that a distributed
// step mounts is an error; one that steps may share at once is recorded
// for the backends to warn about, as only Tekton's affinity assistant
// keeps such steps on one node.
func (lw *lowering) claimAccess() {
	for name, v := range lw.volumes {
		if v.Create == nil {
			continue
		}
		distributed, pair := mountUse(lw.p.Steps, name)
		written := lw.plat.Storage.AccessModes
		switch {
		case len(written) > 0 && !slices.ContainsFunc(written, writable):
			lw.errorf(lw.plat.Loc.Field("storage").Field("accessModes"), "%s: the claim made for each run starts empty, and no step could write to it; use ReadWriteOnce or ReadWriteMany, or name a claim that holds the data to read with storage.pvc", strings.Join(written, ", "))
		case len(written) == 0 && (distributed != "" || pair != nil):
			v.Create.AccessModes = []string{readWriteMany}
			why := "step \"" + distributed + "\" runs pods on several nodes"
			if distributed == "" {
				why = "steps \"" + pair[0] + "\" and \"" + pair[1] + "\" may run at the same time on different nodes"
			}
			// Said at storage:, which may not write accessModes.
			storage := lw.plat.Loc.Field("storage")
			lw.warnf(diag.ClaimReadWriteMany, storage.Field("accessModes").At(storage.Pos()), "the claim made for each run is ReadWriteMany, since %s and all mount it; its storage class must offer ReadWriteMany (NFS, EFS, Filestore, Azure Files, CephFS; not EBS, Persistent Disk or local-path, where the claim would stay Pending): set storageClassName, or accessModes: [ReadWriteOnce] for steps that may wait for each other's volume", why)
		case len(written) == 0:
			v.Create.AccessModes = []string{readWriteOnce}
		case oneNode(written) && distributed != "":
			lw.errorf(lw.plat.Loc.Field("storage").Field("accessModes"), "%s: step %q runs pods on several nodes, which all mount the workspace, and a %s claim attaches to one node; %s", written[0], distributed, written[0], oneNodeAccessHint)
		case oneNode(written) && pair != nil:
			v.Concurrent = pair
		}
		lw.volumes[name] = v
	}
}

// writable says whether pods can write to a claim of this access mode.
func writable(mode string) bool { return mode != readOnlyMany }

// oneNode says whether a claim with these access modes attaches to one
// node only.
func oneNode(modes []string) bool {
	return !slices.Contains(modes, readWriteMany) && !slices.Contains(modes, readOnlyMany)
}

// mountUse finds, among the steps that mount volume, the first
// distributed one, and the first two that may run at the same time:
// steps are in topological order, so the mounting steps are all ordered
// one after another exactly when each is an ancestor of the next.
func mountUse(steps []*ir.Step, volume string) (distributed string, pair []string) {
	index := map[string]int{}
	var mounting []int
	for i, s := range steps {
		index[s.Name] = i
		if !slices.ContainsFunc(s.Mounts, func(m ir.Mount) bool { return m.Volume == volume }) {
			continue
		}
		if s.Kind != ir.Container && distributed == "" {
			distributed = s.Name
		}
		mounting = append(mounting, i)
	}
	for k := 1; k < len(mounting) && pair == nil; k++ {
		a, b := mounting[k-1], mounting[k]
		if !isAncestor(steps, index, a, b) {
			pair = []string{steps[a].Name, steps[b].Name}
		}
	}
	return distributed, pair
}

// isAncestor says whether step a must finish before step b starts,
// searching b's dependencies back to a's place in the order.
func isAncestor(steps []*ir.Step, index map[string]int, a, b int) bool {
	seen := map[int]bool{b: true}
	queue := []int{b}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, d := range steps[n].Dependencies {
			i := index[d]
			if i == a {
				return true
			}
			if i > a && !seen[i] {
				seen[i] = true
				queue = append(queue, i)
			}
		}
	}
	return false
}
