package spec

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mlcube-compile/mlcube-compile/diag"
)

// SetPaths gives the parameters of a cube's tasks the paths that NAME=PATH
// arguments name, as mlcube run takes them: every task with an input or
// output of that name gets the path (check_parameters in
// mlcube/mlcube/config.py of mlcommons/mlcube reads task_cli_args by the
// parameter's name), as a pipeline step's inputs: or outputs: would give
// it; for a MedPerf container, a volume's location. Only a cube run
// without a pipeline file takes them: a pipeline file says its paths in
// its steps. The values that come back are those NAME=VALUE arguments
// meant for a pipeline's params (pathsWithPipeline), to fill them for the
// rest of the compile.
func SetPaths(p *Pipeline, paths []Setting) (diag.Diagnostics, []ParamValue) {
	if p == nil || len(paths) == 0 {
		return nil, nil
	}
	top := diag.At(diag.Pos{File: p.File, Line: 1, Col: 1})
	if !p.FromCube {
		return pathsWithPipeline(p, paths, top)
	}
	var diags diag.Diagnostics
	for _, s := range paths {
		if strings.TrimSpace(s.Value) == "" {
			diags = append(diags, diag.Errorf(diag.BadPathArg, top.Field(s.Name),
				"%s= gives no path; want NAME=PATH, such as %s=data/", s.Name, s.Name))
			continue
		}
		if !setPath(p.Steps, s) {
			names := paramNames(p.Steps)
			diags = append(diags, diag.Errorf(diag.UnknownName, top.Field(s.Name),
				"%q is no parameter of the tasks run (parameters: %s)", s.Name,
				strings.Join(names, ", ")).WithFix(diag.DidYouMean(s.Name, names)))
		}
	}
	return diags, nil
}

// pathsWithPipeline refuses NAME=PATH arguments given with a pipeline
// file, which says its steps' paths itself, one error each. A NAME that is
// one of its params was meant as its value, which --set gives (argo
// submit -p's habit: -p name=value), and so was one near a param's name,
// which the hint names. Those values come back, to fill their params for
// the rest of the compile: the one mistake is one error, not also that
// the param has no value.
func pathsWithPipeline(p *Pipeline, paths []Setting, top diag.Loc) (diag.Diagnostics, []ParamValue) {
	byName := map[string]*PipelineParam{}
	var names []string
	for _, pp := range p.Params {
		byName[pp.Name] = pp
		names = append(names, pp.Name)
	}
	slices.Sort(names)
	var diags diag.Diagnostics
	var meant []ParamValue
	for _, s := range paths {
		if pp, ok := byName[s.Name]; ok {
			diags = append(diags, diag.Errorf(diag.BadPathArg, pp.Loc,
				"%s=%s on the command line: %s is a param of the pipeline", s.Name, s.Value, s.Name).
				WithFix(fmt.Sprintf("give it its value with --set %s=%s", s.Name, s.Value)).
				WithDetail("NAME=PATH sets a cube parameter's path, with no pipeline file."))
			meant = append(meant, ParamValue{Name: s.Name, Value: s.Value, Loc: pp.Loc})
			continue
		}
		fix := "a pipeline file gives its steps' paths in inputs: and outputs:"
		if len(names) > 0 {
			fix += ", and a value to one of its params (" + strings.Join(names, ", ") + ") with --set NAME=VALUE"
		}
		d := diag.Errorf(diag.BadPathArg, top.Field(s.Name),
			"%s=%s sets a cube parameter's path when no pipeline file is given", s.Name, s.Value)
		if near := diag.Nearest(s.Name, names); near != "" {
			d = d.WithFix("did you mean --set " + near + "=" + s.Value + "?")
			meant = append(meant, ParamValue{Name: near, Value: s.Value, Loc: byName[near].Loc})
		}
		diags = append(diags, d.WithFix(fix))
	}
	return diags, meant
}

// setPath gives every step whose task has a parameter named s.Name the
// path s.Value, and reports whether one had it.
func setPath(steps []*Step, s Setting) bool {
	found := false
	for _, st := range steps {
		if st.Task == nil {
			continue
		}
		if slices.ContainsFunc(st.Task.Inputs, func(p *Param) bool { return p.Name == s.Name }) {
			st.Inputs = withPath(st.Inputs, s)
			found = true
		}
		if slices.ContainsFunc(st.Task.Outputs, func(p *Param) bool { return p.Name == s.Name }) {
			st.Outputs = withPath(st.Outputs, s)
			found = true
		}
	}
	return found
}

func withPath(m map[string]string, s Setting) map[string]string {
	if m == nil {
		m = map[string]string{}
	}
	m[s.Name] = s.Value
	return m
}

// paramNames lists the parameters of the steps' tasks, sorted.
func paramNames(steps []*Step) []string {
	seen := map[string]bool{}
	for _, st := range steps {
		if st.Task == nil {
			continue
		}
		for _, p := range append(append([]*Param{}, st.Task.Inputs...), st.Task.Outputs...) {
			seen[p.Name] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}
