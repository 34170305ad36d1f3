package ir

import "slices"

// Mount puts a Volume, or its folder or file SubPath, at MountPath.
type Mount struct {
	Volume    string
	MountPath string
	// Name names a mount of part of a volume, unique in the step and a
	// valid Kubernetes name: a MedPerf volume's name, for engines that
	// name each mount (Tekton's task workspaces). Empty for a whole
	// volume, which the volume's name names.
	Name string `json:",omitempty"`
	// SubPath is the folder or file of the volume mounted; empty for the
	// whole volume. It may refer to pipeline parameters.
	SubPath Text `json:",omitempty"`
	// ReadOnly mounts it read-only.
	ReadOnly bool `json:",omitempty"`
	// File mounts the file SubPath itself, which is created empty on the
	// volume before the step's container starts when it is not there
	// (the kubelet would make a missing subPath a folder), as MedPerf
	// creates an output file before it binds it: a MedPerf output file
	// in the container's root folder, which no folder of its own holds.
	File bool `json:",omitempty"`
}

// Folder is an output path of a step's args, whose folder is made
// before the step's container starts.
type Folder struct {
	// Param is the cube parameter whose argument it is, for backends
	// that pass differing paths to a shared template (Arg.Param).
	Param string
	// Path is the output as the container sees it (the Arg's Value).
	Path Text
	// File says Path is a file, whose folder is made; else Path is.
	File bool `json:",omitempty"`
}

// FetchedVolume holds what a step fetches from URLs, each input in a
// folder of its own, mounted read-only beside the workspace.
const FetchedVolume = "fetched"

// MountUse finds, among the steps that mount volume, the first
// distributed one, and the first two that may run at the same time:
// steps are in topological order, so the mounting steps are all ordered
// one after another exactly when each is an ancestor of the next.
// Lowering chooses a claim's access modes by it, and the checks of the
// lowered pipeline refuse the modes a platform writes by it. A cached
// step's key pod, which mounts the claims the step reads
// (StepKey.Claims), waits for the steps the step waits for and comes
// before it: it has the step's place in this order, and changes no
// answer.
func MountUse(steps []*Step, volume string) (distributed string, pair []string) {
	index := map[string]int{}
	var mounting []int
	for i, s := range steps {
		index[s.Name] = i
		if !slices.ContainsFunc(s.Mounts, func(m Mount) bool { return m.Volume == volume }) {
			continue
		}
		// Only a Dask step's client (or job runner) mounts its volumes.
		if s.Kind != Container && s.Kind != Dask && distributed == "" {
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
func isAncestor(steps []*Step, index map[string]int, a, b int) bool {
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

// Writable says whether pods can write to a claim of access mode mode.
func Writable(mode string) bool { return mode != "ReadOnlyMany" }

// OneNode says whether a claim with access modes modes attaches to one
// node only.
func OneNode(modes []string) bool {
	return !slices.Contains(modes, "ReadWriteMany") && !slices.Contains(modes, "ReadOnlyMany")
}
