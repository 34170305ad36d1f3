package spec

import (
	"fmt"
	"regexp"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/source"
	"github.com/mlcube-compile/mlcube-compile/diag"
	"github.com/mlcube-compile/mlcube-compile/schema"
)

// decodeCube reads an MLCube 2.0 mlcube.yaml that has been parsed.
func decodeCube(sc *schema.Context, f *ast.File) (*Cube, diag.Diagnostics) {
	diags := source.ResolveRefs(f)
	// A reference can join pieces into engine syntax, such as "{" and
	// "{workflow.name}}"; the resolved text is checked again.
	if more := source.CheckTree(f); more != nil {
		return nil, append(diags, more...)
	}
	doc, more := checkDocument(sc, f, schema.MLCube)
	diags = append(diags, more...)
	if !doc.usable {
		return nil, diags
	}
	v := doc.data
	c := &Cube{
		Name:    str(v, "name"),
		File:    doc.file,
		Image:   str(v, "docker", "image"),
		GPUArgs: DockerArgs{Text: str(v, "docker", "gpu_args"), Loc: doc.at("docker", "gpu_args")},
		CPUArgs: DockerArgs{Text: str(v, "docker", "cpu_args"), Loc: doc.at("docker", "cpu_args")},
		K8s: K8sRunner{
			PVC:       str(v, "k8s", "pvc"),
			Image:     str(v, "k8s", "image"),
			Namespace: str(v, "k8s", "namespace"),
		},
	}
	if n, err := v.LookupPath(pathOf("platform", "accelerator_count")).Int64(); err == nil {
		c.AcceleratorCount = int(n)
	}
	gpuFlag, refused := gpuFlagOf(v.LookupPath(pathOf("docker", "--gpus")), doc.at("docker", "--gpus"))
	c.GPUFlag = gpuFlag
	diags = append(append(diags, refused...), blankRunnerValues(doc, v)...)
	forFields(v.LookupPath(pathOf("docker")), func(name string, fv cue.Value) {
		if strings.HasPrefix(name, "--") && name != "--gpus" && name != "--mount_opts" {
			c.Flags = append(c.Flags, DockerArgs{Text: shellQuote(name + "=" + scalarString(fv)), Loc: doc.at("docker", name)})
		}
	})
	forFields(v.LookupPath(pathOf("docker", "env_args")), func(name string, ev cue.Value) {
		c.Env = append(c.Env, EnvVar{Name: name, Value: scalarString(ev), Loc: doc.at("docker", "env_args", name)})
	})
	forFields(v.LookupPath(pathOf("tasks")), func(name string, tv cue.Value) {
		t := &Task{Name: name, Loc: doc.at("tasks", name), Entrypoint: str(tv, "entrypoint")}
		t.Inputs, _ = decodeParams(doc, tv, name, "inputs")
		var untyped diag.Diagnostics
		t.Outputs, untyped = decodeParams(doc, tv, name, "outputs")
		diags = append(diags, untyped...)
		diags = append(diags, checkParamNames(t, t.Loc.Field("parameters"))...)
		c.Tasks = append(c.Tasks, t)
	})
	if len(c.Tasks) == 0 {
		return nil, append(diags, diag.Errorf(diag.BadShape, doc.at("tasks"), "a cube needs at least one task"))
	}
	return c, diags
}

// decodeParams reads a task's inputs or outputs in the order they are
// written, and refuses an output whose type MLCube cannot tell.
func decodeParams(doc *document, task cue.Value, taskName, kind string) ([]*Param, diag.Diagnostics) {
	var out []*Param
	var diags diag.Diagnostics
	forFields(task.LookupPath(pathOf("parameters", kind)), func(name string, pv cue.Value) {
		p := &Param{Name: name, Loc: doc.at("tasks", taskName, "parameters", kind, name)}
		// No default means the parameter's name; a default of "" is the
		// workspace itself, as MLCube makes it (Path(workspace) / "").
		given, typed := true, false
		if pv.Kind() == cue.StringKind {
			p.Path = str(pv)
		} else {
			given = pv.LookupPath(pathOf("default")).Exists()
			p.Path = str(pv, "default")
			p.Dir = str(pv, "type") == "directory"
			typed = str(pv, "type") != "" && str(pv, "type") != "unknown"
		}
		if p.Path == "" && !given {
			p.Path = name
		}
		// MLCube takes a path that ends in a separator, / or \\, for a
		// directory (MLCubeConfig.check_parameters, mlcube/config.py).
		if strings.HasSuffix(p.Path, "/") || strings.HasSuffix(p.Path, `\`) {
			p.Dir, typed = true, true
		}
		if kind == "outputs" && !typed {
			diags = append(diags, untypedOutput(p))
		}
		out = append(out, p)
	})
	return out, diags
}

// untypedOutput refuses an output MLCube cannot tell a file from a folder
// of: its runner stops before the container starts (Shell.
// generate_mounts_and_args, mlcube/shell.py). An input of unknown type
// MLCube types by what is on the host, which only the run can tell.
func untypedOutput(p *Param) diag.Diagnostic {
	return diag.Errorf(diag.OutputTypeUnknown, p.Loc,
		"output %q has no type, and its path %q does not end in /: MLCube cannot tell a file from a folder", p.Name, p.Path).
		WithFix("give it type: file or type: directory, or end a folder's path in /").
		WithDetail("MLCube stops mlcube run before the container starts (\"Type cannot be unknown for output parameters\"; " +
			"Shell.generate_mounts_and_args, mlcube/shell.py).")
}

// cubeParamName is what a parameter may be called: it becomes a --flag
// and an engine parameter name.
var cubeParamName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// checkParamNames reports parameter names that cannot become a flag, and a
// name used for both an input and an output, each at the parameter, as
// the field name below params.
func checkParamNames(t *Task, params diag.Loc) diag.Diagnostics {
	var diags diag.Diagnostics
	seen := map[string]bool{}
	for _, p := range append(append([]*Param{}, t.Inputs...), t.Outputs...) {
		at := params.Field(p.Name).At(p.Loc.Pos())
		switch {
		case !cubeParamName.MatchString(p.Name):
			diags = append(diags, diag.Errorf(diag.BadParam, at,
				"a parameter name is letters, digits, '_', '.' and '-', starting with a letter or digit"))
		case seen[p.Name]:
			diags = append(diags, diag.Errorf(diag.BadParam, at, "%q is both an input and an output of task %q", p.Name, t.Name))
		}
		seen[p.Name] = true
	}
	return diags
}

// at is where a step that runs the task as it is reports: at the task's
// position, as tasks.NAME.
func (t *Task) At() diag.Loc {
	return diag.At(t.Loc.Pos()).Field("tasks").Field(t.Name)
}

// forFields calls fn for each regular field of a struct, in file order.
func forFields(v cue.Value, fn func(name string, v cue.Value)) {
	if !v.Exists() {
		return
	}
	it, err := v.Fields()
	if err != nil {
		return
	}
	for it.Next() {
		fn(it.Selector().Unquoted(), it.Value())
	}
}

// str returns the string at a path below v, or "" when there is none.
func str(v cue.Value, sels ...string) string {
	s, err := v.LookupPath(pathOf(sels...)).String()
	if err != nil {
		return ""
	}
	return s
}

// scalarString prints a string, number or boolean as its text.
func scalarString(v cue.Value) string {
	if s, err := v.String(); err == nil {
		return s
	}
	return fmt.Sprint(v)
}

// shellQuote quotes a word for SplitWords, so that it reads back whole.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'"
}

// blankRunnerValues refuses an image, docker command or build strategy
// of only spaces: MLCube's docker runner wants each a string that is not
// blank (Config.validate, docker_run.py: check_values(["image",
// "docker", "build_strategy"], str, blanks=False), mlcube/validate.py),
// and stops mlcube run before the container starts. An empty one the
// schema refuses.
func blankRunnerValues(doc *document, v cue.Value) diag.Diagnostics {
	var diags diag.Diagnostics
	for _, key := range []string{"image", "docker", "build_strategy"} {
		if s := str(v, "docker", key); s != "" && strings.TrimSpace(s) == "" {
			diags = append(diags, diag.Errorf(diag.RunnerValueRefused, doc.at("docker", key),
				"is blank: MLCube's docker runner wants a string here that is not blank").
				WithFix("write the value").
				WithDetail("It stops mlcube run before the container starts (check_values in docker_run.py)."))
		}
	}
	return diags
}
