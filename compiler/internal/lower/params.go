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

// lowerParams turns pipeline params into IR params, checking each: its
// name, its default against required and its enum,
// credentials and "$$". Each param with a valid name may be referred to
// as ${params.NAME}.
func (lw *lowering) lowerParams() {
	for _, pp := range lw.spec.Params {
		lw.p.Params = append(lw.p.Params,
			ir.Param{Name: pp.Name, Description: pp.Description, Default: pp.Default, Enum: pp.Enum})
		if !paramName.MatchString(pp.Name) {
			lw.errorf(diag.BadParam, pp.Loc, "a parameter name is letters, digits, '_' and '-', starting with a letter")
			continue
		}
		lw.checkDefault(pp)
		lw.params[pp.Name] = true
		if pp.Given != nil && pp.Default != nil {
			lw.given[pp.Name] = *pp.Default
		}
	}
}

// checkDefault checks a param's default.
func (lw *lowering) checkDefault(pp *spec.PipelineParam) {
	// The default is reported at the param, where it may be missing.
	value := pp.Loc.Field("default").At(pp.Loc.Pos())
	if pp.Given != nil {
		value = pp.Given.Loc
	}
	switch {
	case pp.Required && pp.Default != nil && pp.Given == nil:
		lw.errorf(diag.BadParam, pp.Loc, "a required parameter has no default; drop one of required and default")
	}
	if pp.Default != nil && len(pp.Enum) > 0 && !slices.Contains(pp.Enum, *pp.Default) {
		lw.errorf(diag.BadParam, value, "%q is not one of the enum values of params.%s (%s)", *pp.Default, pp.Name,
			strings.Join(pp.Enum, ", "))
	}
	if more := spec.CheckParamCredential(pp.Name, "", pp.Loc); more != nil {
		lw.diags = append(lw.diags, more...)
	} else {
		lw.diags = append(lw.diags, spec.CheckCredential("", deref(pp.Default), value)...)
	}
	if strings.Contains(deref(pp.Default), "$$") {
		lw.errorf(diag.BadParam, value, "holds \"$$\", which Kubernetes turns into \"$\" once the engine puts the value "+
			"into a container's args or env")
	}
}

// deref returns *s, or "" for nil.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// paramValues, once every reference is read, leaves out of the engine's
// parameters those no reference leaves to the engine, and reports each
// param with no value when needValues says every param needs one now:
//   - a param that only MPI, Dask or torch manifests refer to took its
//     compile-time value there, so a run-time value (argo submit -p, tkn
//     pipeline start -p) would reach nothing: it is no engine parameter;
//   - with steps left out by --step, a param none of the kept steps
//     refers to is left out too, and needs no value.
func (lw *lowering) paramValues() {
	picked := len(lw.spec.Steps) < len(lw.spec.FileSteps)
	lw.p.Params = slices.DeleteFunc(lw.p.Params, func(p ir.Param) bool {
		return (lw.used[p.Name] && !lw.atRunTime[p.Name]) || (picked && !lw.used[p.Name])
	})
	for _, pp := range lw.spec.Params {
		if pp.Default == nil && lw.needValues != "" && (lw.used[pp.Name] || !picked) {
			lw.diags = append(lw.diags, diag.Errorf(diag.BadParam, pp.Loc, "has no value, and %s", lw.needValues).
				WithFix(fmt.Sprintf("give it one with --set %s=VALUE or -f VALUES.yaml", pp.Name)))
		}
	}
}
