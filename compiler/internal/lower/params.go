package lower

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/spec"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

var paramName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]*$`)

// paramRefs are the pipeline's params as ${params.X} references read
// them: the names one may refer to, and the values -f and --set give them
// at compile time; as references are read, used are the params some
// reference refers to, and atRunTime those of them some reference leaves
// to the engine (not replaced by its compile-time value in a job's
// manifest).
type paramRefs struct {
	names, used, atRunTime map[string]bool
	given                  map[string]string
}

// lowerParams turns pipeline params into IR params, checking each: its
// name, its default against required and its enum,
// credentials and "$$". Each param with a valid name may be referred to
// as ${params.NAME}.
func lowerParams(pps []*spec.PipelineParam) ([]ir.Param, *paramRefs, diag.Diagnostics) {
	var out []ir.Param
	var diags diag.Diagnostics
	refs := &paramRefs{names: map[string]bool{}, used: map[string]bool{}, atRunTime: map[string]bool{},
		given: map[string]string{}}
	for _, pp := range pps {
		out = append(out, ir.Param{Name: pp.Name, Description: pp.Description, Default: pp.Default, Enum: pp.Enum})
		if !paramName.MatchString(pp.Name) {
			diags = append(diags, diag.Errorf(diag.BadParam, pp.Loc,
				"a parameter name is letters, digits, '_' and '-', starting with a letter"))
			continue
		}
		diags = append(diags, checkDefault(pp)...)
		refs.names[pp.Name] = true
		if pp.Given != nil && pp.Default != nil {
			refs.given[pp.Name] = *pp.Default
		}
	}
	return out, refs, diags
}

// checkDefault checks a param's default.
func checkDefault(pp *spec.PipelineParam) diag.Diagnostics {
	var diags diag.Diagnostics
	// The default is reported at the param, where it may be missing.
	value := pp.Loc.Field("default").At(pp.Loc.Pos())
	if pp.Given != nil {
		value = pp.Given.Loc
	}
	if pp.Required && pp.Default != nil && pp.Given == nil {
		diags = append(diags, diag.Errorf(diag.BadParam, pp.Loc,
			"a required parameter has no default; drop one of required and default"))
	}
	if pp.Default != nil && len(pp.Enum) > 0 && !slices.Contains(pp.Enum, *pp.Default) {
		diags = append(diags, diag.Errorf(diag.BadParam, value, "%q is not one of the enum values of params.%s (%s)",
			*pp.Default, pp.Name, strings.Join(pp.Enum, ", ")))
	}
	if more := spec.CheckParamCredential(pp.Name, "", pp.Loc); more != nil {
		diags = append(diags, more...)
	} else {
		diags = append(diags, spec.CheckCredential("", deref(pp.Default), value)...)
	}
	if strings.Contains(deref(pp.Default), "$$") {
		diags = append(diags, diag.Errorf(diag.BadParam, value, "holds \"$$\", which Kubernetes turns into \"$\" once the "+
			"engine puts the value into a container's args or env"))
	}
	return diags
}

// deref returns *s, or "" for nil.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// engineParams, once every reference is read, leaves out of ps, the
// engine's parameters, those no reference leaves to the engine:
//   - a param that only MPI, Dask or torch manifests refer to took its
//     compile-time value there, so a run-time value (argo submit -p, tkn
//     pipeline start -p) would reach nothing: it is no engine parameter;
//   - with steps left out by --step (picked), a param none of the kept
//     steps refers to is left out too.
func (r *paramRefs) engineParams(ps []ir.Param, picked bool) []ir.Param {
	return slices.DeleteFunc(ps, func(p ir.Param) bool {
		return (r.used[p.Name] && !r.atRunTime[p.Name]) || (picked && !r.used[p.Name])
	})
}

// needValues, once every reference is read, reports each param with no
// value when why says every param needs one now; with steps left out by
// --step (picked), only those the kept steps refer to.
func (r *paramRefs) needValues(pps []*spec.PipelineParam, why string, picked bool) diag.Diagnostics {
	var diags diag.Diagnostics
	for _, pp := range pps {
		if pp.Default == nil && why != "" && (r.used[pp.Name] || !picked) {
			diags = append(diags, diag.Errorf(diag.BadParam, pp.Loc, "has no value, and %s", why).
				WithFix(fmt.Sprintf("give it one with --set %s=VALUE or -f VALUES.yaml", pp.Name)))
		}
	}
	return diags
}

// unused, once every reference is read, warns of a param no step of the
// run refers to; with --step (picked), only of one whose value -f or
// --set gave, since the steps left out may refer to the others.
func (r *paramRefs) unused(pps []*spec.PipelineParam, picked bool) diag.Diagnostics {
	var diags diag.Diagnostics
	for _, pp := range pps {
		if r.used[pp.Name] || !r.names[pp.Name] {
			continue
		}
		switch {
		case pp.Given != nil:
			why := ""
			if picked {
				why = " (--step left out the others)"
			}
			diags = append(diags, diag.Warnf(diag.ParamReachesNothing, pp.Given.Loc,
				"%s=%s: no step of the run refers to ${params.%s}, so the value reaches no step%s", pp.Name,
				pp.Given.Value, pp.Name, why))
		case !picked:
			diags = append(diags, diag.Warnf(diag.ParamReachesNothing, pp.Loc,
				"no step of the run refers to ${params.%s}, so the param reaches no step", pp.Name))
		}
	}
	return diags
}
