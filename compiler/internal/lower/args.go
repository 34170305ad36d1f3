package lower

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/mlcube-compile/mlcube-compile/compiler/graph"
	"github.com/mlcube-compile/mlcube-compile/compiler/internal/spec"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// containerArgs builds the command and arguments the MLCube runners use:
// the task name first unless the task has an entrypoint (or is a run file
// of the mlcube_k8s runner, which passes none), then one --param=path per
// parameter, then the step's own args.
func (sl *stepLowering) containerArgs() ([]string, []ir.Arg, []ir.Mount, graph.IO) {
	st := sl.st
	var command []string
	var args []ir.Arg
	t := st.Task
	if st.Cube.Container {
		return sl.containerVolumes()
	}
	switch {
	case t.Entrypoint != "":
		var diags diag.Diagnostics
		command, diags = words(t.Entrypoint, t.At().Field("entrypoint"))
		sl.diags = append(sl.diags, diags...)
	case !st.Cube.Legacy:
		args = append(args, ir.Arg{Value: ir.Lit(t.Name)})
	case t.InvokeName != "":
		args = append(args, ir.Arg{Value: ir.Lit(t.InvokeName)})
	}
	mounts := map[string]string{}
	var io graph.IO
	for _, p := range t.Inputs {
		arg, data := sl.paramArg(p, "inputs", st.Inputs[p.Name], mounts)
		args, io.Reads = append(args, arg), append(io.Reads, data...)
	}
	for _, p := range t.Outputs {
		arg, data := sl.paramArg(p, "outputs", st.Outputs[p.Name], mounts)
		args, io.Writes = append(args, arg), append(io.Writes, data...)
	}
	args = append(args, sl.stepArgs()...)
	var ms []ir.Mount
	for _, v := range slices.Sorted(maps.Keys(mounts)) {
		ms = append(ms, ir.Mount{Volume: v, MountPath: mounts[v], ReadOnly: v == ir.FetchedVolume})
	}
	return command, args, ms, io
}

// paramArg is the --param=path argument of a task's parameter of kind
// (inputs or outputs), with the step's override if it has one, and the
// workspace data it names, if any; mounts gains the volume it is on.
func (sl *stepLowering) paramArg(p *spec.Param, kind, override string,
	mounts map[string]string) (ir.Arg, []string) {
	st := sl.st
	// A legacy binding too is named as a cube's parameter.
	raw, at := p.Path,
		diag.At(p.Loc.Pos()).Field("tasks").Field(st.Task.Name).Field("parameters").Field(kind).Field(p.Name)
	parse := func(s string) ir.Text { return ir.Lit(s) } // a cube's own paths hold no pipeline references
	if own := st.CubeInputs[p.Name]; kind == "inputs" && own != "" && override == "" {
		raw = own // the cube's own file, under its name (spec's keepCubeInputs)
	}
	if override != "" {
		raw, at = override, st.Loc.Field(kind).Field(p.Name)
		parse = func(s string) ir.Text { return sl.text(s, at) }
	}
	arg := ir.Arg{Param: p.Name, Prefix: "--" + p.Name + "="}
	if isURL(raw) {
		if _, file, ok := sl.urlInput(p.Name, raw, kind, at); ok {
			mounts[ir.FetchedVolume] = sl.fetchRoot()
			arg.Value = ir.Lit(file)
		}
		return arg, nil
	}
	if strings.HasPrefix(raw, "/") {
		sl.diags = append(sl.diags, diag.Warnf(diag.PathInContainer, at,
			"absolute path %q is in the container, not on the workspace volume; steps "+
				"cannot pass data through it", raw))
		arg.Value = parse(raw)
		return arg, nil
	}
	if strings.HasPrefix(raw, "~") {
		// MLCube joins it to the workspace as it is (Path(workspace) /
		// value), and no shell expands it in an argument: a folder named ~.
		sl.diags = append(sl.diags, diag.Warnf(diag.PathTilde, at,
			"path %q starts with ~, which is not expanded", raw).
			WithFix("write the path relative to the workspace").
			WithDetail("MLCube and the compiler join it to the workspace as it is, a folder named ~."))
	}
	var volume, root string
	if p.Claim != "" {
		volume, root = sl.claimVolume(p)
	} else {
		volume, root = sl.workspace(), sl.mountPath
	}
	mounts[volume] = root
	rel := cleanKeepParams(raw)
	if rel == ".." || strings.HasPrefix(rel, "../") {
		sl.diags = append(sl.diags, diag.Warnf(diag.PathLeavesWorkspace, at,
			"path %q leaves the workspace; in the container it is %s, outside the volume",
			raw, path.Join(root, rel)))
	}
	arg.Value = ir.Lit(root)
	if rel != "" {
		arg.Value = mergeLiterals(append(ir.Lit(root+"/"), parse(rel)...))
	}
	if p.Claim == "" {
		sl.recordPath(p, raw, rel, arg.Value, kind == "outputs", at, -1)
	}
	if kind == "outputs" {
		folder := p.Dir || strings.HasSuffix(raw, "/") || rel == ""
		sl.data.folders = append(sl.data.folders, ir.Folder{Param: p.Name, Path: arg.Value, File: !folder})
	}
	return arg, []string{graph.Qualify(volume, rel)}
}

// cleanKeepParams cleans a relative path the way path.Clean does.
func cleanKeepParams(p string) string {
	c := path.Clean(p)
	if c == "." {
		return ""
	}
	return c
}

// mergeLiterals joins neighbouring literal pieces.
func mergeLiterals(t ir.Text) ir.Text {
	var out ir.Text
	for _, p := range t {
		if n := len(out); n > 0 && p.Param == "" && out[n-1].Param == "" {
			out[n-1].Literal += p.Literal
			continue
		}
		out = append(out, p)
	}
	return out
}

// stepArgs are the step's own args, each checked for credentials.
func (sl *stepLowering) stepArgs() []ir.Arg {
	var args []ir.Arg
	for i, a := range sl.st.Args {
		at := sl.st.Loc.Field("args").Index(i)
		sl.diags = append(sl.diags, spec.CheckArgCredential(a, at)...)
		args = append(args, ir.Arg{Value: sl.text(a, at)})
	}
	return args
}

// words splits a command written at at into words as a shell would; a
// command it cannot split is refused, and has none.
func words(command string, at diag.Loc) ([]string, diag.Diagnostics) {
	words, err := spec.SplitWords(command)
	if err != nil {
		return words, diag.Diagnostics{diag.Errorf(diag.BadCommand, at, "%v", err)}
	}
	return words, nil
}

// text parses a pipeline-file string written at at, whose ${params.X}
// references become the engine's own references. Each must name a
// param, the step must take references, and nothing before one may join
// with it into engine syntax; a reference to no param stays as written.
func (sl *stepLowering) text(s string, at diag.Loc) ir.Text {
	t, diags := sl.refs.parse(s, &at, sl.noParams)
	sl.diags = append(sl.diags, diags...)
	return t
}

// parse is text, reporting at at, in the manifest of the kind of job
// noParams names (stepLowering's); with at nil, it reports nothing, for a
// part of a string text has read.
func (r *paramRefs) parse(s string, at *diag.Loc, noParams string) (ir.Text, diag.Diagnostics) {
	var diags diag.Diagnostics
	report := func(code diag.Code, format string, args ...any) {
		if at != nil {
			diags = append(diags, diag.Errorf(code, *at, format, args...))
		}
	}
	var out ir.Text
	last := 0
	for _, m := range spec.AnyRef.FindAllStringSubmatchIndex(s, -1) {
		ref := strings.TrimSpace(s[m[2]:m[3]])
		param, problem := spec.ParamOf(ref, r.names)
		if problem == "" {
			r.used[param] = true
		}
		value, given := r.given[param]
		switch {
		case problem != "":
			report(diag.BadParamRef, "%s", problem)
			continue
		case noParams != "" && !given && at != nil:
			diags = append(diags, diag.Errorf(diag.BadParamRef, *at,
				"${%s}: this step runs as %s, and %s has no value at compile time", ref, noParams, param).
				WithFix(fmt.Sprintf("give it one with --set %s=VALUE or -f VALUES.yaml (which lint takes too, for every "+
					"pipeline it checks), or write the value itself", param)).
				WithDetail("The engine fills in %s's manifest without escaping, so a value given at run time could rewrite "+
					"it; a default is a run-time value, which argo submit -p or tkn pipeline start -p changes.",
					noParams))
		case strings.HasSuffix(s[last:m[0]], "$") || strings.HasSuffix(s[last:m[0]], "{"):
			if at != nil {
				diags = append(diags, diag.Errorf(diag.BadParamRef, *at,
					"%q right before ${%s} would join with its value into engine syntax such as $(…) or {{…}}",
					s[m[0]-1:m[0]], ref).
					WithFix("put something else between them"))
			}
		}
		if noParams != "" && given {
			// Its manifest takes the compile-time value as written.
			out = append(out, ir.Piece{Literal: s[last:m[0]] + value})
		} else {
			out = append(out, ir.Piece{Literal: s[last:m[0]]}, ir.Piece{Param: param})
			r.atRunTime[param] = true
		}
		last = m[1]
	}
	out = append(out, ir.Piece{Literal: s[last:]})
	var trimmed ir.Text
	for _, p := range out {
		if p.Param != "" || p.Literal != "" {
			trimmed = append(trimmed, p)
		}
	}
	return mergeLiterals(trimmed), diags
}
