package spec

import (
	"path/filepath"
	"slices"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/source"
	"github.com/mlcube-compile/mlcube-compile/diag"
	"github.com/mlcube-compile/mlcube-compile/schema"
)

// decodeCompactRoot reads a compact .mlcube.yaml as MLCube 1.0 unpacks it
// (CompactMLCube in mlcube_metadata.py): each task's parameters split by
// io into its inputs and outputs, and each of its runs a run file named
// after the run, whose bindings go to the inputs and outputs they name;
// a binding that names neither is dropped, as the unpacking drops it,
// with a warning. docker is what platforms/docker.yaml gives the cube.
func decodeCompactRoot(sc *schema.Context, files *source.Files, f *ast.File,
	docker *legacyDocker) (*Cube, diag.Diagnostics) {
	doc, diags := checkDocument(sc, f, schema.CompactRoot)
	if !doc.usable {
		return nil, diags
	}
	// MLCube writes this name into the mlcube.yaml it makes from a file
	// that has none.
	c := &Cube{Name: "MLCube name", File: doc.file, Legacy: true}
	if name := str(doc.data, "name"); name != "" {
		c.Name = name
	}
	docker.apply(c)
	r := &legacyReader{sc: sc, files: files, dir: filepath.Dir(doc.file), docker: true, order: map[string]int{}}
	runs := map[string]bool{}
	forFields(doc.data.LookupPath(pathOf("tasks")), func(task string, v cue.Value) {
		r.order[task] = len(r.order)
		types := compactTypes(v)
		forFields(v.LookupPath(pathOf("tasks")), func(run string, b cue.Value) {
			at := doc.at("tasks", task, "tasks", run)
			if runs[run] {
				r.diags = append(r.diags, diag.Errorf(diag.BadTaskList, at,
					"a second run named %q: MLCube 1.0 unpacks each run into run/%s.yaml and keeps the first", run, run))
				return
			}
			runs[run] = true
			t := &Task{Name: run, InvokeName: task, Loc: at, File: doc.file}
			forFields(b, func(name string, p cue.Value) {
				path, _ := p.String()
				param := &Param{Name: name, Loc: at.Field(name).At(doc.at("tasks", task, "tasks", run, name).Pos()),
					Path: r.workspacePath(path, at.Field(name))}
				dir, isInput := types["input"][name]
				if isInput {
					param.Dir = dir
					t.Inputs = append(t.Inputs, param)
					return
				}
				if dir, ok := types["output"][name]; ok {
					param.Dir = dir
					t.Outputs = append(t.Outputs, param)
					return
				}
				r.diags = append(r.diags, diag.Warnf(diag.BindingDropped, param.Loc,
					"task %q has no parameter %q, so MLCube 1.0 drops this binding when it unpacks the run", task, name))
			})
			// The run file MLCube writes has its keys sorted (PyYAML's
			// safe_dump), and the runner passes them in that order.
			byName := func(a, b *Param) int { return strings.Compare(a.Name, b.Name) }
			slices.SortStableFunc(t.Inputs, byName)
			slices.SortStableFunc(t.Outputs, byName)
			r.diags = append(r.diags, r.sameInAndOut(t)...)
			c.Tasks = append(c.Tasks, t)
		})
	})
	c.Tasks = r.flowOrder(c.Tasks)
	return c, append(diags, r.diags...)
}

// compactTypes is, for the inputs and the outputs of a compact task,
// whether each parameter is a directory.
func compactTypes(task cue.Value) map[string]map[string]bool {
	types := map[string]map[string]bool{"input": {}, "output": {}}
	list, _ := task.LookupPath(pathOf("parameters")).List()
	for list.Next() {
		types[str(list.Value(), "io")][str(list.Value(), "name")] = str(list.Value(), "type") == "directory"
	}
	return types
}
