package spec

import (
	"slices"
	"strings"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/source"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// PickSteps notes the steps of a pipeline file in FileSteps, then keeps
// only those names names (--step), in the pipeline's order, each without
// the after: entries of steps left out (the paths they read are then the
// ones no step writes). A name that is no step, or names for a cube's
// tasks, which have no pipeline file, is an error at --step, and the
// steps are left whole.
func PickSteps(p *Pipeline, names []string) diag.Diagnostics {
	if p == nil {
		return nil
	}
	if !p.FromCube {
		p.FileSteps = nil
		for _, st := range p.Steps {
			p.FileSteps = append(p.FileSteps, st.Name)
		}
	}
	if len(names) == 0 {
		return nil
	}
	at := source.Flag("--step")
	if p.FromCube {
		return diag.Diagnostics{diag.Errorf(diag.BadFlag, at,
			"picks steps of a pipeline file, and none is given: a cube's tasks are named with --task a,b")}
	}
	var diags diag.Diagnostics
	for _, n := range names {
		if !slices.Contains(p.FileSteps, n) {
			diags = append(diags, diag.Errorf(diag.UnknownName, at, "%q: %s has no step of that name (steps: %s)", n, p.File,
				strings.Join(p.FileSteps, ", ")).WithFix(diag.DidYouMean(n, p.FileSteps)))
		}
	}
	if len(diags) > 0 {
		return diags
	}
	var kept []*Step
	for _, st := range p.Steps {
		if !slices.Contains(names, st.Name) {
			continue
		}
		var after []string
		for _, a := range st.After {
			if slices.Contains(names, a) {
				after = append(after, a)
			}
		}
		st.After = after
		kept = append(kept, st)
	}
	p.Steps = kept
	return nil
}
