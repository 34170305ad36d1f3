package lower

import (
	"fmt"
	"path"
	"strings"

	"github.com/mlcube-compile/mlcube-compile/compiler/graph"
	"github.com/mlcube-compile/mlcube-compile/compiler/internal/spec"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// mixedWriters refuses a step that reads what two steps write at one
// path when only the file orders the writers (graph.MixedWriters): the
// run would succeed with the reader given what the last writer left,
// whichever it meant. The error is at the reader and names both writers
// and the fix.
func (fl *flow) mixedWriters(after [][]int) diag.Diagnostics {
	var diags diag.Diagnostics
	for _, m := range graph.MixedWriters(fl.io, after) {
		reader, first, second := fl.specs[m.Reader], fl.specs[m.First], fl.specs[m.Second]
		shown, own, _ := fl.ownPlace(second, fl.steps[m.Second].Name, []string{m.Path})
		in := fl.readOf(fl.steps[m.Reader].Name, m.Path)
		d := diag.Errorf(diag.MixedWriters, reader.Loc,
			"reads %s, which steps %s and %s both write, and nothing orders one after the other",
			shown, first.Name, second.Name).
			WithFix(fmt.Sprintf("give one of them a place of its own with %s and say which %s reads with inputs: "+
				"(steps.%s.inputs: {%s: ...}); or, if %s rewrites %s's data in place, order it with after: [%s]",
				own, reader.Name, reader.Name, in, second.Name, first.Name, first.Name)).
			WithDetail("They run in the file's order, so %s would read what %s left there and never %s's.",
				reader.Name, second.Name, first.Name)
		d = d.WithRelated(first.Loc.Pos(), fmt.Sprintf("step %s writes %s", first.Name, shown))
		d = d.WithRelated(second.Loc.Pos(), fmt.Sprintf("step %s writes %s", second.Name, shown))
		diags = append(diags, d)
	}
	return diags
}

// overwrites warns of two steps that write one path no step reads,
// when only the file orders them (graph.Overwrites): the run keeps only
// what the second writes there. One warning per pair of writers, at the
// second, names the paths, both writers and the fix.
func (fl *flow) overwrites(after [][]int) diag.Diagnostics {
	var diags diag.Diagnostics
	var pairs [][2]int
	paths := map[[2]int][]string{}
	for _, o := range graph.Overwrites(fl.io, after) {
		k := [2]int{o.First, o.Second}
		if paths[k] == nil {
			pairs = append(pairs, k)
		}
		paths[k] = append(paths[k], o.Path)
	}
	for _, k := range pairs {
		first, second := fl.specs[k[0]], fl.specs[k[1]]
		list, own, folder := fl.ownPlace(second, fl.steps[k[1]].Name, paths[k])
		lost := fmt.Sprintf("the run keeps only %s's and %s's is written over", second.Name, first.Name)
		if folder {
			lost = fmt.Sprintf("of the files both write by one name, the run keeps only %s's and %s's are written over",
				second.Name, first.Name)
		}
		d := diag.Warnf(diag.Overwritten, second.Loc,
			"steps %s and %s both write %s, and nothing orders one after the other", first.Name, second.Name, list).
			WithFix(fmt.Sprintf("give one of them a place of its own with %s; or, if %s rewrites %s's data in place on "+
				"purpose, order it with after: [%s]", own, second.Name, first.Name, first.Name)).
			WithDetail("They run in the file's order, so %s.", lost)
		diags = append(diags, d.WithRelated(first.Loc.Pos(), fmt.Sprintf("step %s writes %s", first.Name, list)))
	}
	return diags
}

// ownPlace is how step st (name, as lowered) writes the
// volume-qualified paths qs, listed as a user writes them, the setting
// that gives them a place of its own under the step's name (its
// outputs:, or a Dask step's dask.output), and whether one is a folder.
func (fl *flow) ownPlace(st *spec.Step, name string, qs []string) (string, string, bool) {
	var shown, own []string
	anyFolder := false
	for _, q := range qs {
		sh, out, folder := fl.written(name, q)
		place := path.Join(st.Name, path.Base(strings.TrimSuffix(sh, "/")))
		if folder {
			place += "/"
		}
		anyFolder = anyFolder || folder
		shown, own = append(shown, sh), append(own, out+": "+place)
	}
	list := strings.Join(shown, ", ")
	if n := len(shown); n > 1 {
		list = strings.Join(shown[:n-1], ", ") + " and " + shown[n-1]
	}
	if st.Dask != nil {
		_, place, _ := strings.Cut(own[0], ": ")
		return list, fmt.Sprintf("dask.output (steps.%s.dask.output: {path: %s})", st.Name, place), anyFolder
	}
	return list, fmt.Sprintf("outputs: (steps.%s.outputs: {%s})", st.Name, strings.Join(own, ", ")), anyFolder
}

// written is how a step's write of the volume-qualified path q is shown:
// its workspace path, the parameter that writes it, and whether it is
// a folder.
func (fl *flow) written(step, q string) (string, string, bool) {
	if d := fl.data[step]; d != nil {
		for _, p := range d.paths {
			if p.write && graph.Qualify(workspaceVolume, p.rel) == q {
				return shownPath(p), p.param, p.folder
			}
		}
	}
	return strings.TrimPrefix(q, workspaceVolume+":/"), "OUTPUT", false
}

// readOf is the parameter by which a step reads what touches q.
func (fl *flow) readOf(step, q string) string {
	if d := fl.data[step]; d != nil {
		for _, p := range d.paths {
			if !p.write && graph.Touch(graph.Qualify(workspaceVolume, p.rel), q) {
				return p.param
			}
		}
	}
	return "INPUT"
}

// shownPath is a workspace path as a user writes it, a folder with a
// trailing /.
func shownPath(p dataPath) string {
	if p.folder && p.rel != "" {
		return p.rel + "/"
	}
	return p.rel
}

// needed is the paths the run reads that no step writes
// (graph.Unwritten), each on the claim claimOf says must hold its volume
// before the run starts, each with the values of params.
func (fl *flow) needed(claimOf func(volume string) string, params []*spec.PipelineParam) []ir.Needed {
	var out []ir.Needed
	for _, u := range graph.Unwritten(fl.io) {
		vol, rel, _ := strings.Cut(u.Path, ":/")
		n := ir.Needed{Path: rel, Claim: claimOf(vol)}
		for _, r := range u.Readers {
			n.Steps = append(n.Steps, fl.specs[r].Name)
			if d := fl.data[fl.steps[r].Name]; d != nil && vol == workspaceVolume {
				for _, p := range d.paths {
					if !p.write && p.rel == rel && p.folder {
						n.Path = shownPath(p)
					}
				}
			}
		}
		if n.Path == "" {
			n.Path = "./"
		}
		n.Path = withValues(n.Path, params)
		out = append(out, n)
	}
	return out
}

// claimOf is the claim that holds a volume's data before the run starts:
// the workspace claim, with an object workspace storage.pvc's, or a
// legacy binding's claim.
func (lw *lowering) claimOf(volume string) string {
	switch {
	case volume != workspaceVolume:
		return lw.volumes[volume].ClaimName
	case lw.plat.Storage.Object():
		return lw.plat.Storage.PVC
	}
	return lw.ws.ClaimName
}

// withValues is a workspace path as the compiled run reads it: each
// ${params.X} in it written as the value of params' X (the one --set or
// a values file gives, or its default); a param with no value at compile
// time, which the run is given when it starts, stays a reference.
func withValues(rel string, params []*spec.PipelineParam) string {
	if !strings.Contains(rel, "${params.") {
		return rel
	}
	for _, pp := range params {
		if pp.Default != nil {
			rel = strings.ReplaceAll(rel, "${params."+pp.Name+"}", *pp.Default)
		}
	}
	return rel
}
