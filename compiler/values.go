package compiler

import (
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"

	"github.com/mlcube-compile/mlcube-compile/schema"
)

// Setting is one --set NAME=VALUE.
type Setting struct {
	Name, Value string
}

// paramValue is a value given to a param at compile time, and where.
type paramValue struct {
	Name, Value string
	Pos         Pos
	// Field is how diagnostics name it: the key in a values file, or
	// --set NAME.
	Field string
}

// readValues reads the -f files in order, then the --set settings: the
// values that fill params at compile time, later ones winning.
func readValues(s *schema.Schema, files []string, sets []Setting, diags *Diagnostics) []paramValue {
	var out []paramValue
	for _, file := range files {
		if f, ok := readYAML(file, "-f", diags); ok {
			out = append(out, decodeValues(s, f, diags)...)
		}
	}
	for _, set := range sets {
		v := paramValue{Name: set.Name, Value: set.Value, Pos: Pos{File: "--set"}, Field: joinPath("", set.Name)}
		// Files are checked for engine syntax as they are parsed; a
		// flag's value is checked here.
		if msg := templateSyntax(v.Value); msg != "" {
			diags.errorf(v.Pos, v.Field, "%s", msg)
			continue
		}
		out = append(out, v)
	}
	return out
}

// decodeValues reads one values file: a mapping of param names to
// strings, numbers or booleans.
func decodeValues(s *schema.Schema, f *ast.File, diags *Diagnostics) []paramValue {
	doc, ok := checkDocument(s, f, schema.Values, diags)
	if !ok {
		return nil
	}
	var out []paramValue
	forFields(doc.data, func(name string, v cue.Value) {
		out = append(out, paramValue{Name: name, Value: scalarString(v), Pos: doc.at(name), Field: joinPath("", name)})
	})
	return out
}

// applyValues gives each param named by a value that value as its
// default. A value for a param the pipeline does not have is an error.
func applyValues(p *pipelineSpec, values []paramValue, diags *Diagnostics) {
	byName := map[string]*pipelineParam{}
	var names []string
	for _, pp := range p.Params {
		byName[pp.Name] = pp
		names = append(names, pp.Name)
	}
	for _, v := range values {
		pp, ok := byName[v.Name]
		switch {
		case ok:
			value := v.Value
			pp.Default, pp.Given = &value, &v
			continue
		case len(names) == 0:
			diags.errorf(v.Pos, v.Field, "%s has no params: to fill", p.File)
		default:
			diags.errorf(v.Pos, v.Field, "no parameter %q in %s (params: %s)", v.Name, p.File, strings.Join(sortedCopy(names), ", "))
		}
	}
}
