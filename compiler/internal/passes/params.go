package passes

import (
	"fmt"
	"slices"

	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// ParamValues, once every reference to a param is read, reports each
// param with no value when NeedValues says every param needs one now,
// warns of each param no step of the run refers to, and leaves out of
// Params those that are no engine parameter:
//   - a param that only MPI, Dask or torch manifests refer to took its
//     compile-time value there, so a run-time value (argo submit -p, tkn
//     pipeline start -p) would reach nothing: it is no engine parameter;
//   - with steps left out by --step, a param none of the kept steps
//     refers to is left out too, and needs no value; of the others, only
//     one whose value -f or --set gave is warned of, since the steps left
//     out may refer to them.
func ParamValues(p *ir.Pipeline) diag.Diagnostics {
	picked := len(p.Steps) < len(p.FileSteps)
	var diags diag.Diagnostics
	for _, pm := range p.Params {
		if pm.Default == nil && p.NeedValues != "" && (pm.Used || !picked) {
			diags = append(diags, diag.Errorf(diag.BadParam, pm.Loc, "has no value, and %s", p.NeedValues).
				WithFix(fmt.Sprintf("give it one with --set %s=VALUE or -f VALUES.yaml", pm.Name)))
		}
		if len(p.Steps) > 0 {
			diags = append(diags, unusedParam(pm, picked)...)
		}
	}
	p.Params = slices.DeleteFunc(p.Params, func(pm ir.Param) bool {
		return (pm.Used && !pm.AtRunTime) || (picked && !pm.Used)
	})
	return diags
}

// unusedParam warns of pm when no step of the run refers to it; with
// --step (picked), only when -f or --set gave its value.
func unusedParam(pm ir.Param, picked bool) diag.Diagnostics {
	switch {
	case pm.Used || !pm.Named:
		return nil
	case pm.Given != nil:
		why := ""
		if picked {
			why = " (--step left out the others)"
		}
		return diag.Diagnostics{diag.Warnf(diag.ParamReachesNothing, pm.Given.Loc,
			"%s=%s: no step of the run refers to ${params.%s}, so the value reaches no step%s", pm.Name,
			pm.Given.Value, pm.Name, why)}
	case !picked:
		return diag.Diagnostics{diag.Warnf(diag.ParamReachesNothing, pm.Loc,
			"no step of the run refers to ${params.%s}, so the param reaches no step", pm.Name)}
	}
	return nil
}
