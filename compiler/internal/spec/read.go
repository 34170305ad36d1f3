package spec

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"cuelang.org/go/cue/ast"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/source"
	"github.com/mlcube-compile/mlcube-compile/diag"
	"github.com/mlcube-compile/mlcube-compile/schema"
)

// Read reads the platform, task and cube files into specs: mlcube is a
// cube folder or file ("." when empty), platform and task are as
// compiler.Options has them, in the schema's Context sc.
func Read(sc *schema.Context, files *source.Files,
	mlcube, platform, task string) (*Pipeline, *Platform, diag.Diagnostics) {
	if mlcube == "" {
		mlcube = "."
	}
	l := newLoader(sc, files)
	plat, docker := l.platform(platform)
	named := NamesTasks(files, task, func() []string { return CubeTaskNames(sc, files, mlcube) })
	loadCube := func(invoke *ast.File) *Cube {
		if mlcube == "." && l.noCubeHere(task) {
			return nil
		}
		if (task == "" || named) && l.pipelineBeside(l.files.CubeFile(mlcube), source.Flag("--mlcube")) {
			return nil
		}
		c := l.cube(mlcube, source.Flag("--mlcube"))
		if c != nil && c.Legacy && invoke != nil {
			root := l.readYAML(c.File, source.Flag("--mlcube"))
			c = l.legacyRoot(root, legacyDockerOf(c), invoke)
		}
		docker.apply(c)
		return c
	}
	p := l.pipeline(task, named, loadCube)
	if p != nil {
		p.Incomplete = l.incomplete
	}
	return p, plat, l.diags
}

// noCubeHere reports, as an error, that the current folder, where a cube
// is looked for when nothing names one, has none; false when it has.
func (l *loader) noCubeHere(task string) bool {
	file := l.files.CubeFile(".")
	if _, err := l.files.Stat(file); err == nil {
		return false
	}
	why := "name a cube folder with --mlcube DIR"
	if names := l.files.ContainerFiles("."); len(names) > 0 {
		why = fmt.Sprintf("it has MedPerf container files %s: name one, such as --mlcube %s",
			strings.Join(names, ", "), names[0])
	}
	switch task {
	case "":
		why += ", or a pipeline file with --task FILE"
	case source.StdinName:
		why = "a pipeline on standard input has no folder of its own to find its cube in: name it with --mlcube DIR, or " +
			"give the pipeline cubes:"
	}
	l.errorf(diag.MissingFile, source.Flag("--mlcube").At(diag.Pos{File: file}),
		"no mlcube.yaml or %s in the current folder; %s", source.ContainerConfigFile, why)
	return true
}

// platform reads the --platform file, ours or a legacy docker one, which
// is returned apart.
func (l *loader) platform(file string) (*Platform, *legacyDocker) {
	plat := &Platform{}
	if file == "" {
		return plat, nil
	}
	f := l.readYAML(file, source.Flag("--platform"))
	switch {
	case f == nil:
		l.incomplete = true
	case isLegacyPlatform(f):
		docker, diags := decodeLegacyPlatform(l.sc, f)
		l.add(diags)
		l.incomplete = l.incomplete || docker == nil
		return plat, docker
	default:
		p, diags := decodePlatform(l.sc, f)
		l.add(diags)
		if p != nil {
			plat = p
		} else {
			l.incomplete = true
		}
	}
	return plat, nil
}

// pipeline reads what --task names: nothing (every task of the cube),
// tasks of the cube (named, as NamesTasks tells), a legacy invoke file or
// a pipeline file.
func (l *loader) pipeline(task string, named bool, loadCube func(invoke *ast.File) *Cube) *Pipeline {
	if task == "" {
		p := cubePipeline(loadCube(nil))
		if p != nil {
			p.Tasks = EveryTask
		}
		return p
	}
	if named {
		l.shadowedFile(task)
		return l.taskList(loadCube(nil), task)
	}
	if info, err := l.files.Stat(task); err == nil && info.IsDir() {
		pipeline := filepath.Join(task, "pipeline.yaml")
		hint := "name its pipeline file"
		if _, err := l.files.Stat(pipeline); err == nil {
			hint = "its pipeline file: --task " + pipeline
		} else if _, err := l.files.Stat(l.files.CubeFile(task)); err == nil {
			hint = "it holds a cube: give it with --mlcube " + task
		}
		l.diags = append(l.diags, diag.Errorf(diag.WrongFile, source.Flag("--task").At(diag.Pos{File: task}),
			"is a folder, want a pipeline file or a task name").WithFix(hint))
		return nil
	}
	f := l.readTaskFile(task)
	if f == nil {
		return nil
	}
	top := diag.At(diag.Pos{File: task, Line: 1, Col: 1})
	switch {
	case source.TopLevelString(f, "schema_type") == "mlcube_invoke":
		c := loadCube(f)
		if c != nil && !c.Legacy {
			l.diags = append(l.diags, diag.Errorf(diag.WrongFile, top.Field("schema_type"),
				"a legacy invoke file needs a legacy cube; %s is an MLCube 2.0 file", c.File).
				WithDetail("A legacy cube has schema_type: mlcube_root."))
			return nil
		}
		return cubePipeline(c)
	case source.HasTopLevel(f, "steps"):
		return l.decodePipeline(f, func() *Cube { return loadCube(nil) })
	}
	l.errorf(diag.WrongFile, diag.Flag("--task").At(top.Pos()),
		"neither a pipeline file (with steps:) nor an MLCube invoke file (with schema_type: mlcube_invoke)")
	return nil
}

// readTaskFile reads the --task file: a 1.0 run file as MLCube 1.0 reads
// it, where a key written twice keeps its last value
// (source.ReadYAMLKeepLast), any other file as every spec is read.
func (l *loader) readTaskFile(task string) *ast.File {
	for _, k := range l.files.RawTopLevel(task) {
		if k.Name == "schema_type" && k.Value == "mlcube_invoke" {
			f, diags := l.files.ReadYAMLKeepLast(task, source.Flag("--task"))
			l.add(diags)
			return f
		}
	}
	return l.readYAML(task, source.Flag("--task"))
}

// taskList makes the pipeline that runs one task of a cube, or the tasks
// of a comma-separated list one after another in the order given, as
// mlcube run --task a,b,c does (mlcube/mlcube/__main__.py splits the
// list and runs each task in turn).
func (l *loader) taskList(c *Cube, list string) *Pipeline {
	p := cubePipeline(c)
	if p == nil {
		return nil
	}
	at := diag.Flag("--task").At(diag.Pos{File: c.File, Line: 1, Col: 1})
	steps, byName := p.Steps, map[string]*Step{}
	for _, st := range steps {
		byName[st.Name] = st
	}
	p.Steps = nil
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		st, runs := byName[name], ""
		if st == nil {
			st, runs = runOf(steps, name)
		}
		switch {
		case name == "":
			l.errorf(diag.BadTaskList, at, "%q: an empty task name; list tasks as a,b,c", list)
		case runs != "":
			l.errorf(diag.BadTaskList, at, "%q is the task of several run files of cube %q: %s; give --task one of "+
				"those names or files", name, c.Name, runs)
		case st == nil:
			tasks := c.TaskNames()
			neither := "neither a file nor a task"
			if _, err := l.files.Stat(list); err == nil {
				neither = "an empty file here, and no task"
			}
			l.add(diag.Diagnostics{diag.Errorf(diag.UnknownName, at, "%q is %s of cube %q (tasks: %s)", name, neither, c.Name,
				strings.Join(slices.Sorted(slices.Values(tasks)), ", ")).WithFix(diag.DidYouMean(name, tasks))})
		case slices.Contains(p.Steps, st):
			l.errorf(diag.BadTaskList, at, "task %q is listed twice in %q; a task runs once", name, list)
		default:
			if n := len(p.Steps); n > 0 {
				st.After = []string{p.Steps[n-1].Name}
			}
			p.Steps = append(p.Steps, st)
		}
	}
	if len(p.Steps) != len(strings.Split(list, ",")) {
		return nil
	}
	if len(p.Steps) > 1 {
		p.Tasks = InOrder
	}
	return p
}

// runOf is the step of the one run file of a 1.0 cube that name names:
// the file run/NAME.yaml, as MLCube 1.0 reads --task NAME
// (get_task_instance_path in mlcube_metadata.py), else the one run file
// whose task_name it is (a step named otherwise, because several run
// files run that task); when several do, nil and their names and files.
func runOf(steps []*Step, name string) (*Step, string) {
	var runs []*Step
	for _, st := range steps {
		file := st.Task.File
		if filepath.Base(filepath.Dir(file)) == legacyRunDir && filepath.Base(file) == name+".yaml" {
			return st, ""
		}
		if st.Task.InvokeName == name && st.Name != name {
			runs = append(runs, st)
		}
	}
	if len(runs) == 1 {
		return runs[0], ""
	}
	var names []string
	for _, st := range runs {
		names = append(names, st.Name+" ("+st.Task.File+")")
	}
	return nil, strings.Join(names, ", ")
}

// cubePipeline makes the pipeline that runs every task of a cube. Each
// step is its task, at the task's position.
func cubePipeline(c *Cube) *Pipeline {
	if c == nil {
		return nil
	}
	p := &Pipeline{File: c.File, Loc: diag.At(diag.Pos{File: c.File}), Name: c.Name, FromCube: true}
	for _, t := range c.Tasks {
		p.Steps = append(p.Steps, &Step{Name: t.Name, Loc: t.At(), Cube: c, Task: t})
	}
	return p
}
