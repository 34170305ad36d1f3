package lower

import (
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
		p := ir.Param{Name: pp.Name, Description: pp.Description, Default: pp.Default, Enum: pp.Enum, Loc: pp.Loc}
		if pp.Given != nil {
			p.Given = &ir.GivenValue{Value: pp.Given.Value, Loc: pp.Given.Loc}
		}
		p.Named = paramName.MatchString(pp.Name)
		out = append(out, p)
		if !p.Named {
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

// mark gives each of ps, once every reference is read, what the
// param-values pass reads: whether a reference names it, and whether
// one leaves it to the engine.
func (r *paramRefs) mark(ps []ir.Param) {
	for i := range ps {
		ps[i].Used, ps[i].AtRunTime = r.used[ps[i].Name], r.atRunTime[ps[i].Name]
	}
}
