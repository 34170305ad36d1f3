package compiler

import (
	"cmp"
	"io/fs"
	"strings"

	"cuelang.org/go/cue/ast"

	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/compiler/source"
	"github.com/mlcube-compile/mlcube-compile/diag"
	"github.com/mlcube-compile/mlcube-compile/schema"
)

// Options are the files one compilation reads.
type Options struct {
	// MLCube is a cube folder or its mlcube.yaml; "." when empty.
	MLCube string
	// Platform is a platform file, or a legacy docker platform file
	// (schema_type: mlcube_platform); optional.
	Platform string
	// Task is a pipeline file, a legacy invoke file, or the name of one
	// task of the cube; optional. Without it, every task of the cube runs,
	// wired by path flow.
	Task string
	// Values are values files (-f), each a mapping of param names to
	// values, read in order; Set (--set) comes after them. Each value
	// becomes its param's default.
	Values []string
	Set    []Setting
	// NeedValues, when set, says why every param needs a value at compile
	// time, such as "a Job has no run-time parameters".
	NeedValues string
	// Schedule overrides the pipeline file's schedule: key, field by field.
	Schedule ScheduleOptions
	// FS, when set, is where files are read from, by the paths above;
	// the machine's own files otherwise.
	FS fs.FS
	// Schema, when set, replaces the shared schema: a CUE context serves
	// one goroutine at a time, so lint gives each worker its own.
	Schema *schema.Schema
}

// Compile reads the specs, checks them and lowers them to the IR. The
// Diagnostics, sorted, hold every error and warning; the pipeline is nil
// when there are errors.
func Compile(opts Options) (*ir.Pipeline, diag.Diagnostics) {
	s, err := opts.Schema, error(nil)
	if s == nil {
		s, err = schema.Load()
	}
	if err != nil {
		at := diag.At(diag.Pos{File: source.New(opts.FS).CubeFile(cmp.Or(opts.MLCube, "."))}).Field("schema")
		return nil, diag.Diagnostics{diag.Errorf(at, "loading the embedded schemas: %v", err)}
	}
	s.Lock()
	defer s.Unlock()
	spec, plat, diags := readSpecs(s, opts)
	values, more := readValues(s, source.New(opts.FS), opts.Values, opts.Set)
	diags = append(diags, more...)
	if spec != nil {
		diags = append(diags, applyValues(spec, values)...)
		spec.Schedule = overrideSchedule(spec.Schedule, opts.Schedule)
	}
	var p *ir.Pipeline
	if !diags.HasErrors() && spec != nil {
		p, more = lower(spec, plat, opts.NeedValues)
		diags = append(diags, more...)
	}
	return p, diags.Sorted()
}

// readSpecs reads the platform, task and cube files into specs.
func readSpecs(s *schema.Schema, opts Options) (*pipelineSpec, *platformSpec, diag.Diagnostics) {
	if opts.MLCube == "" {
		opts.MLCube = "."
	}
	l := newLoader(s, source.New(opts.FS))
	plat, legacyImage := l.platform(opts.Platform)
	loadCube := func(invoke *ast.File) *cube {
		c := l.cube(opts.MLCube, source.Flag("--mlcube"))
		if c != nil && c.Legacy && invoke != nil {
			root := l.readYAML(c.File, source.Flag("--mlcube"))
			c = l.legacyRoot(root, c.Image, invoke)
		}
		if c != nil && legacyImage != "" {
			c.Image = legacyImage
		}
		return c
	}
	p := l.pipeline(opts.Task, loadCube)
	return p, plat, l.diags
}

// platform reads the --platform file, ours or a legacy docker one, whose
// image is returned instead.
func (l *loader) platform(file string) (*platformSpec, string) {
	plat := &platformSpec{}
	if file == "" {
		return plat, ""
	}
	f := l.readYAML(file, source.Flag("--platform"))
	switch {
	case f == nil:
	case source.TopLevelString(f, "schema_type") == "mlcube_platform":
		image, diags := decodeLegacyPlatform(l.s, f)
		l.add(diags)
		return plat, image
	default:
		p, diags := decodePlatform(l.s, f)
		l.add(diags)
		if p != nil {
			plat = p
		}
	}
	return plat, ""
}

// pipeline reads what --task names: nothing (every task of the cube), a
// task of the cube, a legacy invoke file or a pipeline file.
func (l *loader) pipeline(task string, loadCube func(invoke *ast.File) *cube) *pipelineSpec {
	if task == "" {
		return cubePipeline(loadCube(nil))
	}
	if isTaskName(l.files, task) {
		return l.oneTask(loadCube(nil), task)
	}
	f := l.readYAML(task, source.Flag("--task"))
	if f == nil {
		return nil
	}
	top := diag.At(diag.Pos{File: task, Line: 1, Col: 1})
	switch {
	case source.TopLevelString(f, "schema_type") == "mlcube_invoke":
		c := loadCube(f)
		if c != nil && !c.Legacy {
			l.errorf(top.Field("schema_type"), "a legacy invoke file needs a legacy cube (schema_type: mlcube_root); %s is an MLCube 2.0 file", c.File)
			return nil
		}
		return cubePipeline(c)
	case source.HasTopLevel(f, "steps"):
		return l.decodePipeline(f, func() *cube { return loadCube(nil) })
	}
	l.errorf(top.Field("--task"), "neither a pipeline file (with steps:) nor an MLCube invoke file (with schema_type: mlcube_invoke)")
	return nil
}

// isTaskName tells a task name given to --task from a file: it is not a
// file, has no folder and no YAML extension.
func isTaskName(files *source.Files, s string) bool {
	if _, err := files.Stat(s); err == nil {
		return false
	}
	return !strings.ContainsAny(s, `/\`) && !strings.HasSuffix(s, ".yaml") && !strings.HasSuffix(s, ".yml")
}

// oneTask makes the pipeline that runs one task of a cube.
func (l *loader) oneTask(c *cube, name string) *pipelineSpec {
	p := cubePipeline(c)
	if p == nil {
		return nil
	}
	for _, st := range p.Steps {
		if st.Name == name {
			p.Steps = []*stepSpec{st}
			return p
		}
	}
	l.errorf(diag.At(diag.Pos{File: c.File, Line: 1, Col: 1}).Field("--task"), "%q is neither a file nor a task of cube %q (tasks: %s)", name, c.Name, strings.Join(sortedCopy(c.taskNames()), ", "))
	return nil
}

// cubePipeline makes the pipeline that runs every task of a cube. Each
// step is its task, at the task's position.
func cubePipeline(c *cube) *pipelineSpec {
	if c == nil {
		return nil
	}
	p := &pipelineSpec{File: c.File, Loc: diag.At(diag.Pos{File: c.File}), Name: c.Name}
	for _, t := range c.Tasks {
		p.Steps = append(p.Steps, &stepSpec{Name: t.Name, Loc: t.at(), Cube: c, Task: t})
	}
	return p
}
