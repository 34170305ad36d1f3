package spec

import (
	"cmp"
	"slices"
	"strings"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/source"
	"github.com/mlcube-compile/mlcube-compile/diag"
	"github.com/mlcube-compile/mlcube-compile/schema"
)

// NamesTasks tells a --task value that names tasks of the cube (one, or
// a list a,b,c) from one that names a file. A path (with a folder, or a
// .yaml or .yml name) is a file, and so is a name that is not there. A
// bare name that is there too, as an ML repository's train/ folder or a
// file named like a task, names the cube's tasks when cubeTasks (asked
// only then) has every one of them: ./NAME reads the file. An empty file
// of a bare name is never a pipeline, so it names tasks whatever the cube
// has, and reading them says which are not there.
func NamesTasks(files *source.Files, task string, cubeTasks func() []string) bool {
	if task == "" || task == source.StdinName || isPath(task) {
		return false
	}
	if info, err := files.Stat(task); err != nil || !info.IsDir() && info.Size() == 0 {
		return true
	}
	names := cubeTasks()
	for _, name := range strings.Split(task, ",") {
		if !slices.Contains(names, strings.TrimSpace(name)) {
			return false
		}
	}
	return true
}

// isPath tells a path from a bare name: it names a folder, or a YAML file.
func isPath(s string) bool {
	return strings.ContainsAny(s, `/\`) || strings.HasSuffix(s, ".yaml") || strings.HasSuffix(s, ".yml")
}

// CubeTaskNames are the names --task takes for the cube in mlcube (a
// folder or file, "." when empty): its tasks, or a 1.0 cube's run files;
// nil when it cannot be read. Nothing is reported: the compilation that
// reads the cube reports its problems.
func CubeTaskNames(sc *schema.Context, files *source.Files, mlcube string) []string {
	file := files.CubeFile(cmp.Or(mlcube, "."))
	if info, err := files.Stat(file); err != nil || info.IsDir() {
		return nil
	}
	c := newLoader(sc, files).cube(file, source.Flag("--mlcube"))
	if c == nil {
		return nil
	}
	if !c.Legacy {
		return c.TaskNames()
	}
	var names []string
	for _, st := range cubePipeline(c).Steps {
		names = append(names, st.Name)
	}
	return names
}

// shadowedFile warns, when --task names tasks of the cube and a file of
// that name is here too, that the tasks run and how to read the file.
func (l *loader) shadowedFile(task string) {
	if info, err := l.files.Stat(task); err != nil || info.IsDir() || info.Size() == 0 {
		return
	}
	l.diags = append(l.diags, diag.Warnf(diag.TaskNameIsFile, source.Flag("--task").At(diag.Pos{File: task}),
		"%s is a file here and a task of the cube too: the task runs, as mlcube run --task %s runs it; --task "+
			"./%s reads the file", task, task, task))
}
