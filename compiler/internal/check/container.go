package check

import (
	"path"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/spec"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// mountPaths refuses two volumes of a MedPerf task at one mount path, as
// docker run refuses a duplicate mount point: each volume is data of its
// own, and where it lives in the workspace defaults to its mount path
// (spec's volumeLocation). Each task is checked once, however many steps
// run it.
func (c *checker) mountPaths() {
	seen := map[*spec.Task]bool{}
	for _, st := range c.spec.Steps {
		if st.Cube == nil || !st.Cube.Container || st.Task == nil || seen[st.Task] {
			continue
		}
		seen[st.Task] = true
		c.diags = append(c.diags, taskMountPaths(st.Task)...)
	}
}

// taskMountPaths is mountPaths for one task.
func taskMountPaths(t *spec.Task) diag.Diagnostics {
	var diags diag.Diagnostics
	at := map[string]string{}
	for _, p := range append(append([]*spec.Param{}, t.Inputs...), t.Outputs...) {
		mp := path.Clean(p.MountPath)
		if other, ok := at[mp]; ok {
			diags = append(diags, diag.Errorf(p.Loc, "volume %s is mounted at %s, where volume %s is mounted", p.Name, mp, other))
			continue
		}
		at[mp] = p.Name
	}
	return diags
}
