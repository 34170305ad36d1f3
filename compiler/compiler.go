package compiler

import (
	"fmt"
	"os"
	"strings"

	"cuelang.org/go/cue/ast"

	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
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
	// Schema, when set, replaces the shared schema: a CUE context serves
	// one goroutine at a time, so lint gives each worker its own.
	Schema *schema.Schema
}

// Compile reads the specs, checks them and lowers them to the IR. The
// Diagnostics hold every warning; when there are errors, they are also
// returned as the error.
func Compile(opts Options) (*ir.Pipeline, Diagnostics, error) {
	s, err := opts.Schema, error(nil)
	if s == nil {
		s, err = schema.Load()
	}
	if err != nil {
		return nil, nil, fmt.Errorf("loading the embedded schemas: %w", err)
	}
	s.Lock()
	defer s.Unlock()
	var diags Diagnostics
	spec, plat := readSpecs(s, opts, &diags)
	values := readValues(s, opts.Values, opts.Set, &diags)
	if spec != nil {
		applyValues(spec, values, &diags)
		spec.Schedule = overrideSchedule(spec.Schedule, opts.Schedule)
	}
	var p *ir.Pipeline
	if !diags.HasErrors() && spec != nil {
		p = lower(spec, plat, opts.NeedValues, &diags)
	}
	if diags.HasErrors() {
		return nil, diags.Sorted(), diags
	}
	return p, diags.Sorted(), nil
}

// readSpecs reads the platform, task and cube files into specs.
func readSpecs(s *schema.Schema, opts Options, diags *Diagnostics) (*pipelineSpec, *platformSpec) {
	if opts.MLCube == "" {
		opts.MLCube = "."
	}
	l := newLoader(s, diags)
	plat := &platformSpec{at: func(...string) Pos { return Pos{} }}
	var legacyImage string
	var legacyImagePos Pos
	if opts.Platform != "" {
		if f, ok := readYAML(opts.Platform, "--platform", diags); ok {
			if topLevelString(f, "schema_type") == "mlcube_platform" {
				legacyImage, legacyImagePos = decodeLegacyPlatform(s, f, diags)
			} else if p, _ := decodePlatform(s, f, diags); p != nil {
				plat = p
			}
		}
	}
	loadCube := func(invoke *ast.File) *cube {
		c := l.cube(opts.MLCube, "--mlcube")
		if c != nil && c.Legacy && invoke != nil {
			root, _ := readYAML(c.File, "--mlcube", diags)
			c = decodeLegacyRoot(s, root, c.Image, c.ImagePos, invoke, diags)
		}
		if c != nil && legacyImage != "" {
			c.Image, c.ImagePos = legacyImage, legacyImagePos
		}
		return c
	}
	if opts.Task == "" {
		return cubePipeline(loadCube(nil)), plat
	}
	if isTaskName(opts.Task) {
		return oneTask(loadCube(nil), opts.Task, diags), plat
	}
	f, ok := readYAML(opts.Task, "--task", diags)
	if !ok {
		return nil, plat
	}
	switch {
	case topLevelString(f, "schema_type") == "mlcube_invoke":
		c := loadCube(f)
		if c != nil && !c.Legacy {
			diags.errorf(Pos{File: opts.Task, Line: 1, Col: 1}, "schema_type", "a legacy invoke file needs a legacy cube (schema_type: mlcube_root); %s is an MLCube 2.0 file", c.File)
			return nil, plat
		}
		return cubePipeline(c), plat
	case hasTopLevel(f, "steps"):
		return l.decodePipeline(f, func() *cube { return loadCube(nil) }), plat
	}
	diags.errorf(Pos{File: opts.Task, Line: 1, Col: 1}, "--task", "neither a pipeline file (with steps:) nor an MLCube invoke file (with schema_type: mlcube_invoke)")
	return nil, plat
}

// isTaskName tells a task name given to --task from a file: it is not a
// file, has no folder and no YAML extension.
func isTaskName(s string) bool {
	if _, err := os.Stat(s); err == nil {
		return false
	}
	return !strings.ContainsAny(s, `/\`) && !strings.HasSuffix(s, ".yaml") && !strings.HasSuffix(s, ".yml")
}

// oneTask makes the pipeline that runs one task of a cube.
func oneTask(c *cube, name string, diags *Diagnostics) *pipelineSpec {
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
	diags.errorf(Pos{File: c.File, Line: 1, Col: 1}, "--task", "%q is neither a file nor a task of cube %q (tasks: %s)", name, c.Name, strings.Join(sortedCopy(c.taskNames()), ", "))
	return nil
}

// cubePipeline makes the pipeline that runs every task of a cube.
func cubePipeline(c *cube) *pipelineSpec {
	if c == nil {
		return nil
	}
	p := &pipelineSpec{File: c.File, Name: c.Name}
	for _, t := range c.Tasks {
		p.Steps = append(p.Steps, &stepSpec{
			Name: t.Name, Pos: t.Pos, Cube: c, Task: t, field: "tasks." + t.Name,
			pos: func(...string) Pos { return t.Pos },
		})
	}
	return p
}
