package spec

import (
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/source"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// stepFields is what a step of a pipeline file says, decoded as it is.
type stepFields struct {
	Cube            string            `json:"cube"`
	Task            string            `json:"task"`
	After           []string          `json:"after"`
	Inputs          map[string]string `json:"inputs"`
	Outputs         map[string]string `json:"outputs"`
	Args            []string          `json:"args"`
	EnvFile         string            `json:"envFile"`
	Resources       Resources         `json:"resources"`
	NodeSelector    map[string]string `json:"nodeSelector"`
	Tolerations     []Toleration      `json:"tolerations"`
	SecurityContext *SecurityContext  `json:"securityContext"`
	Retries         *Retries          `json:"retries"`
	Timeout         string            `json:"timeout"`
	Cache           *bool             `json:"cache"`
	Queue           *string           `json:"queue"`
	Priorities
}

// decodePipeline reads a pipeline file. defaultCube is the --mlcube cube,
// loaded only when the file has no cubes: of its own.
func (l *loader) decodePipeline(f *ast.File, defaultCube func() *Cube) *Pipeline {
	if !l.add(checkStepCount(f)) {
		return nil
	}
	doc, steps, ok := l.checkPipeline(f)
	if !ok {
		return nil
	}
	v := doc.data
	p := &Pipeline{File: doc.file, Loc: doc.top(), Name: str(v, "name")}
	configs, diags := decodeConfigs(doc.at("configs"), v.LookupPath(pathOf("configs")))
	l.add(diags)
	p.Configs = configs
	p.Schedule = decodeSchedule(doc.at("schedule"), v.LookupPath(pathOf("schedule")))
	cubes, cubeNames := l.pipelineCubes(doc, steps, defaultCube)
	p.Params = decodeParamsSection(doc, v)
	p.SecretEnv = decodeSecretEnv(doc.at("secretEnv"), v.LookupPath(pathOf("secretEnv")))
	if len(steps) == 0 {
		l.errorf(diag.BadShape, doc.at("steps"), "a pipeline needs at least one step")
	}
	params := map[string]bool{}
	for _, pp := range p.Params {
		params[pp.Name] = true
	}
	for _, sv := range steps {
		if st := l.decodeStep(doc, sv.name, sv.data, cubes, cubeNames, params); st != nil {
			p.Steps = append(p.Steps, st)
		} else {
			l.incomplete = true
		}
	}
	if !l.incomplete {
		l.add(keepCubeInputs(p, len(cubeNames)))
	}
	return p
}

// pipelineCubes loads the cubes: of a pipeline file, by name, and the
// names in file order; the --mlcube cube, named "", when there are none
// and a step needs one.
func (l *loader) pipelineCubes(doc *document, steps []stepValue,
	defaultCube func() *Cube) (map[string]*Cube, []string) {
	cubes := map[string]*Cube{}
	var cubeNames []string
	forFields(doc.data.LookupPath(pathOf("cubes")), func(name string, cv cue.Value) {
		rel, _ := cv.String()
		cubeNames = append(cubeNames, name)
		path := rel
		if !filepath.IsAbs(rel) {
			path = filepath.Join(filepath.Dir(doc.file), rel)
		}
		at := doc.at("cubes", name)
		if !l.add(l.files.Missing(path, at)) {
			cubes[name] = nil
			return
		}
		cubes[name] = l.cube(path, at)
	})
	needsCube := false
	for _, sv := range steps {
		needsCube = needsCube || !sv.data.LookupPath(pathOf("dask")).Exists()
	}
	if len(cubeNames) == 0 && needsCube {
		cubes[""] = defaultCube()
		cubeNames = append(cubeNames, "")
	}
	return cubes, cubeNames
}

func decodeParamsSection(doc *document, v cue.Value) []*PipelineParam {
	var out []*PipelineParam
	forFields(v.LookupPath(pathOf("params")), func(name string, pv cue.Value) {
		pp := &PipelineParam{Name: name, Description: str(pv, "description"), Loc: doc.at("params", name)}
		if d := pv.LookupPath(pathOf("default")); d.Exists() {
			s := scalarString(d)
			pp.Default = &s
		}
		pp.Required, _ = pv.LookupPath(pathOf("required")).Bool()
		_ = pv.LookupPath(pathOf("enum")).Decode(&pp.Enum)
		out = append(out, pp)
	})
	return out
}

// maxSteps bounds a pipeline. Compile time and memory grow in step with
// the steps, about 2 s and 250 MB at this bound, where a 4 MiB spec file
// could hold 130,000 steps. No engine takes this many in one object: a
// step costs about 180 bytes of Argo's 1 MiB limit on a Workflow, so past
// about 5,000 steps the pipeline belongs in several objects anyway.
const maxSteps = 20000

// checkStepCount refuses a pipeline with more than maxSteps steps before
// any schema evaluates it.
func checkStepCount(f *ast.File) diag.Diagnostics {
	var diags diag.Diagnostics
	source.NamedFields(f.Decls, func(name string, field *ast.Field) {
		steps, isMap := field.Value.(*ast.StructLit)
		if name != "steps" || !isMap || len(steps.Elts) <= maxSteps {
			return
		}
		at := diag.At(source.PosOf(field.Pos())).Field("steps")
		diags = append(diags, diag.Errorf(diag.BadShape, at, "%d steps is more than the %d one pipeline may have (%s)",
			len(steps.Elts), maxSteps, ir.SplitHint))
	})
	return diags
}

// decodeSecretEnv reads the secretEnv mapping v, written at loc.
func decodeSecretEnv(loc diag.Loc, v cue.Value) []SecretEnvVar {
	var out []SecretEnvVar
	forFields(v, func(name string, sv cue.Value) {
		e := SecretEnvVar{Name: name, Loc: loc.Field(name)}
		e.Secret, e.Key = str(sv, "secret"), str(sv, "key")
		out = append(out, e)
	})
	return out
}

// decodeStep reads one step and finds its cube and task.
func (l *loader) decodeStep(doc *document, name string, sv cue.Value, cubes map[string]*Cube, cubeNames []string,
	params map[string]bool) *Step {
	at := doc.at("steps", name)
	var sf stepFields
	if err := sv.Decode(&sf); err != nil {
		l.errorf(diag.Internal, at, "decoding: %v", err)
		return nil
	}
	st := &Step{
		Name: name, Loc: at, After: sf.After,
		Inputs: sf.Inputs, Outputs: sf.Outputs, Args: sf.Args,
		Resources: sf.Resources, NodeSelector: sf.NodeSelector, Tolerations: sf.Tolerations,
		SecurityContext: sf.SecurityContext, Retries: sf.Retries, Timeout: sf.Timeout,
		Cache: sf.Cache, Queue: sf.Queue, Priorities: sf.Priorities,
	}
	forFields(sv.LookupPath(pathOf("env")), func(k string, ev cue.Value) {
		st.Env = append(st.Env, EnvVar{Name: k, Value: scalarString(ev), Loc: at.Field("env").Field(k)})
	})
	st.SecretEnv = decodeSecretEnv(at.Field("secretEnv"), sv.LookupPath(pathOf("secretEnv")))
	if sf.EnvFile != "" {
		st.EnvFile = sf.EnvFile
		if !filepath.IsAbs(st.EnvFile) {
			st.EnvFile = filepath.Join(filepath.Dir(doc.file), sf.EnvFile)
		}
		vars, diags := l.files.ReadEnvFile(st.EnvFile, at.Field("envFile"))
		st.EnvFileVars = vars
		l.add(diags)
	}
	l.add(checkParamRefs(st, params))
	st.MPI = l.decodeMPI(at, sv)
	st.Torch = l.decodeTorch(at, sv, st.MPI)
	st.Dask = l.decodeDask(at, sv)
	if st.Dask != nil {
		return l.daskStep(st, sf)
	}
	return l.cubeStep(st, sf, cubes, cubeNames)
}

// cubeStep finds the cube and task a step runs and checks its path
// overrides against the task's parameters.
func (l *loader) cubeStep(st *Step, sf stepFields, cubes map[string]*Cube, cubeNames []string) *Step {
	st.Cube = l.stepCube(st, sf.Cube, cubes, cubeNames)
	if st.Cube == nil {
		return nil
	}
	if len(cubeNames) > 0 && cubeNames[0] != "" {
		st.CubeKey = sf.Cube
		if st.CubeKey == "" {
			st.CubeKey = cubeNames[0]
		}
	}
	taskName := sf.Task
	if taskName == "" {
		taskName = st.Name
	}
	st.Task = st.Cube.Task(taskName)
	if st.Task == nil {
		tasks := st.Cube.TaskNames()
		l.add(diag.Diagnostics{diag.Errorf(diag.UnknownName, st.Loc.Field("task"), "no task %q in cube %q (tasks: %s)",
			taskName, st.Cube.Name,
			strings.Join(slices.Sorted(slices.Values(tasks)), ", ")).WithFix(diag.DidYouMean(taskName, tasks))})
		return nil
	}
	l.checkOverrides(st, "inputs", st.Inputs, st.Task.Inputs)
	l.checkOverrides(st, "outputs", st.Outputs, st.Task.Outputs)
	return st
}

// daskStep checks a Dask step, which runs dask.function rather than a
// cube task.
func (l *loader) daskStep(st *Step, sf stepFields) *Step {
	ok := true
	for _, f := range []struct {
		key string
		set bool
	}{{"cube", sf.Cube != ""}, {"task", sf.Task != ""}, {"mpi", st.MPI != nil}, {"torch", st.Torch != nil},
		{"inputs", len(sf.Inputs) > 0}, {"outputs", len(sf.Outputs) > 0}, {"args", len(sf.Args) > 0}} {
		if f.set {
			l.errorf(diag.BadShape, st.Loc.Field(f.key),
				"a dask step runs dask.function on its own image, not a cube task; drop %s", f.key)
			ok = false
		}
	}
	if !ok {
		return nil
	}
	return st
}

// stepCube finds the cube a step names, or the only cube there is.
func (l *loader) stepCube(st *Step, name string, cubes map[string]*Cube, names []string) *Cube {
	if name == "" {
		if len(names) == 1 {
			return cubes[names[0]]
		}
		l.errorf(diag.BadShape, st.Loc, "the pipeline has several cubes; say which with cube: (cubes: %s)",
			strings.Join(slices.Sorted(slices.Values(names)), ", "))
		return nil
	}
	if names[0] == "" {
		return l.cubeBeside(st, name, cubes[""])
	}
	c, ok := cubes[name]
	if !ok {
		l.add(diag.Diagnostics{diag.Errorf(diag.UnknownName, st.Loc.Field("cube"), "no cube %q (cubes: %s)", name,
			strings.Join(slices.Sorted(slices.Values(names)), ", ")).WithFix(diag.DidYouMean(name, names))})
		return nil
	}
	return c
}

// cubeBeside is the one cube of a pipeline without cubes: (the --mlcube
// cube, or the one beside the pipeline), which a step's cube: may name
// by its name; another name is refused, naming the cube's.
func (l *loader) cubeBeside(st *Step, name string, c *Cube) *Cube {
	if c == nil || name == c.Name {
		return c
	}
	l.add(diag.Diagnostics{diag.Errorf(diag.UnknownName, st.Loc.Field("cube"),
		"no cube %q: the pipeline has no cubes:, and its steps run the cube %q", name, c.Name).
		WithFix(fmt.Sprintf("write cube: %s, or leave cube: out", c.Name)).
		WithDetail("The cube %q is %s.", c.Name, c.File)})
	return nil
}

// checkOverrides reports path overrides for parameters the task does not have.
func (l *loader) checkOverrides(st *Step, kind string, overrides map[string]string, params []*Param) {
	for _, k := range slices.Sorted(maps.Keys(overrides)) {
		found := false
		var names []string
		for _, p := range params {
			names = append(names, p.Name)
			found = found || p.Name == k
		}
		if !found {
			l.add(diag.Diagnostics{diag.Errorf(diag.UnknownName, st.Loc.Field(kind).Field(k),
				"task %q has no %s parameter %q (%s: %s)", st.Task.Name, strings.TrimSuffix(kind, "s"), k, kind,
				strings.Join(slices.Sorted(slices.Values(names)), ", ")).WithSuggestion(k, names)})
		}
	}
}

// checkParamRefs reports every ${...} in the step's own strings that names
// no param, before the step's cube and task are looked up, so that one run
// reports these along with an unknown cube or task.
func checkParamRefs(st *Step, params map[string]bool) diag.Diagnostics {
	var diags diag.Diagnostics
	check := func(s string, at diag.Loc) {
		for _, m := range AnyRef.FindAllStringSubmatch(s, -1) {
			if _, problem := ParamOf(strings.TrimSpace(m[1]), params); problem != "" {
				diags = append(diags, diag.Errorf(diag.BadParamRef, at, "%s", problem))
			}
		}
	}
	for i, a := range st.Args {
		check(a, st.Loc.Field("args").Index(i))
	}
	for _, e := range st.EnvFileVars {
		check(e.Value, e.Loc)
	}
	for _, e := range st.Env {
		check(e.Value, e.Loc)
	}
	for _, kind := range []string{"inputs", "outputs"} {
		overrides := st.Inputs
		if kind == "outputs" {
			overrides = st.Outputs
		}
		for _, k := range slices.Sorted(maps.Keys(overrides)) {
			check(overrides[k], st.Loc.Field(kind).Field(k))
		}
	}
	return diags
}

// ParamOf returns the param a ${...} reference names, or why it names
// none.
func ParamOf(ref string, params map[string]bool) (string, string) {
	pm := paramRef.FindStringSubmatch(ref)
	switch {
	case pm == nil:
		return "", fmt.Sprintf("${%s}: only ${params.NAME} references are allowed here", ref)
	case len(params) == 0:
		return "", fmt.Sprintf("${%s}: the pipeline has no params:", ref)
	case !params[pm[1]]:
		names := slices.Sorted(maps.Keys(params))
		return "", fmt.Sprintf("${%s}: no parameter %q in params (params: %s)%s", ref, pm[1], strings.Join(names, ", "),
			diag.Suggest(pm[1], names))
	}
	return pm[1], ""
}

var (
	// EnvName is what an environment variable may be called.
	EnvName = regexp.MustCompile(`^[-._a-zA-Z][-._a-zA-Z0-9]*$`)
	// AnyRef matches a ${...} reference in a pipeline file's string.
	AnyRef   = regexp.MustCompile(`\$\{([^{}]*)\}`)
	paramRef = regexp.MustCompile(`^params\.([A-Za-z][A-Za-z0-9_-]*)$`)
)
