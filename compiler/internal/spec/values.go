package spec

import (
	"fmt"
	"slices"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/source"
	"github.com/mlcube-compile/mlcube-compile/diag"
	"github.com/mlcube-compile/mlcube-compile/schema"
)

// Setting is one --set NAME=VALUE.
type Setting struct {
	Name, Value string
}

// ParamValue is a value given to a param at compile time, and where:
// the key in a values file, or --set NAME.
type ParamValue struct {
	Name, Value string
	Loc         diag.Loc
}

// ReadValues reads the -f files in order, then the --set settings: the
// values that fill params at compile time, later ones winning.
func ReadValues(sc *schema.Context, src *source.Files, files []string,
	sets []Setting) ([]ParamValue, diag.Diagnostics) {
	var out []ParamValue
	var diags diag.Diagnostics
	for _, file := range files {
		f, more := src.ReadYAML(file, source.Flag("-f"))
		diags = append(diags, more...)
		if f != nil {
			values, more := decodeValues(sc, f)
			out = append(out, values...)
			diags = append(diags, more...)
		}
	}
	for _, set := range sets {
		v := ParamValue{Name: set.Name, Value: set.Value, Loc: diag.Flag("--set").Field(set.Name)}
		// Files are checked for engine syntax as they are parsed; a
		// flag's value is checked here.
		if msg, fix := source.TemplateSyntax(v.Value); msg != "" {
			diags = append(diags, diag.Errorf(diag.WrongValue, v.Loc, "%s", msg).WithFix(fix))
			continue
		}
		out = append(out, v)
	}
	return out, diags
}

// decodeValues reads one values file: a mapping of param names to
// strings, numbers or booleans.
func decodeValues(sc *schema.Context, f *ast.File) ([]ParamValue, diag.Diagnostics) {
	doc, diags := checkDocument(sc, f, schema.Values)
	if !doc.usable {
		return nil, diags
	}
	var out []ParamValue
	forFields(doc.data, func(name string, v cue.Value) {
		out = append(out, ParamValue{Name: name, Value: scalarString(v), Loc: doc.at(name)})
	})
	return out, diags
}

// ApplyValues gives each param named by a value that value as its
// default. A value for a param the pipeline does not have is an error;
// with shared, values given to many pipelines at once (lint's), it is a
// note of the same code and words, which lint makes an error when no
// pipeline had the param.
func ApplyValues(p *Pipeline, values []ParamValue, shared bool) diag.Diagnostics {
	byName := map[string]*PipelineParam{}
	var names []string
	for _, pp := range p.Params {
		byName[pp.Name] = pp
		names = append(names, pp.Name)
	}
	var diags diag.Diagnostics
	for _, v := range values {
		pp, ok := byName[v.Name]
		switch {
		case ok:
			value := v.Value
			pp.Default, pp.Given = &value, &v
			continue
		case len(names) == 0:
			diags = append(diags, diag.Errorf(diag.UnknownName, v.Loc,
				"no param %q: %s declares no params", v.Name, p.File).
				WithFix(fmt.Sprintf("give a cube parameter's path as an argument, %s=PATH", v.Name)).
				WithDetail("The flags --set and -f fill the params: of a pipeline file."))
		default:
			diags = append(diags, diag.Errorf(diag.UnknownName, v.Loc, "no parameter %q in %s (params: %s)", v.Name, p.File,
				strings.Join(slices.Sorted(slices.Values(names)), ", ")).WithFix(diag.DidYouMean(v.Name, names)))
		}
		if shared {
			diags[len(diags)-1].Severity = diag.Note
		}
	}
	return diags
}
