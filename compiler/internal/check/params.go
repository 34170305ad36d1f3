package check

import (
	"regexp"
	"slices"
	"strings"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/spec"
)

var paramName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]*$`)

// checkParams checks each pipeline param: its name, its default against
// required, needValues and its enum, credentials and "$$". Each param
// with a valid name may be referred to as ${params.NAME}.
func (c *checker) checkParams() {
	for _, pp := range c.spec.Params {
		if !paramName.MatchString(pp.Name) {
			c.errorf(pp.Loc, "a parameter name is letters, digits, '_' and '-', starting with a letter")
			continue
		}
		// The default is reported at the param, where it may be missing.
		value := pp.Loc.Field("default").At(pp.Loc.Pos())
		if pp.Given != nil {
			value = pp.Given.Loc
		}
		switch {
		case pp.Required && pp.Default != nil && pp.Given == nil:
			c.errorf(pp.Loc, "a required parameter has no default; drop one of required and default")
		case pp.Default == nil && c.needValues != "":
			c.errorf(pp.Loc, "has no value, and %s; give it one with --set %s=VALUE or -f VALUES.yaml", c.needValues, pp.Name)
		}
		if pp.Default != nil && len(pp.Enum) > 0 && !slices.Contains(pp.Enum, *pp.Default) {
			c.errorf(value, "%q is not one of the enum values of params.%s (%s)", *pp.Default, pp.Name, strings.Join(pp.Enum, ", "))
		}
		if more := spec.CheckParamCredential(pp.Name, "", pp.Loc); more != nil {
			c.diags = append(c.diags, more...)
		} else {
			c.diags = append(c.diags, spec.CheckCredential("", deref(pp.Default), value)...)
		}
		if strings.Contains(deref(pp.Default), "$$") {
			c.errorf(value, "holds \"$$\", which Kubernetes turns into \"$\" once the engine puts the value into a container's args or env")
		}
		c.params[pp.Name] = true
	}
}

// deref returns *s, or "" for nil.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
