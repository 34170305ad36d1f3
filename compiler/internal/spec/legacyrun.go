package spec

import (
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/source"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// runFiles reads every run file under run/, as MLCube 1.0 finds them
// (mlcube_metadata.py, MLCube.get_files("run", recursive=True): every
// .yaml file, in subfolders too), as the tasks of the cube: each is a
// step, named by its task_name where no other run file runs that task,
// else by its path under run/ (run/alice/hello.yaml: alice-hello). They
// come in the order their data flows (a run file that writes what another
// reads runs first), else in the order of the root's task list, else by
// path.
func (r *legacyReader) runFiles(root *document) []*Task {
	dir := filepath.Join(r.dir, legacyRunDir)
	var paths []string
	err := r.files.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".yaml") {
			paths = append(paths, p)
		}
		return err
	})
	if err != nil {
		r.diags = append(r.diags, diag.Errorf(diag.FileUnreadable, root.at("tasks"),
			"cannot read the run files in %s: %v", dir, err).
			WithDetail("MLCube 1.0 runs a task of this cube through a run file (schema_type: mlcube_invoke) there."))
		return nil
	}
	slices.Sort(paths)
	var tasks []*Task
	for _, p := range paths {
		f := r.read(p, root.at("tasks"))
		if f == nil {
			continue
		}
		if source.TopLevelString(f, "schema_type") != "mlcube_invoke" {
			r.diags = append(r.diags,
				diag.Errorf(diag.WrongFile, diag.At(diag.Pos{File: p, Line: 1, Col: 1}).Field("schema_type"),
					"not a run file (schema_type: mlcube_invoke), but MLCube 1.0 reads every .yaml file under %s as one", dir))
			continue
		}
		if t := r.invoke(f); t != nil {
			tasks = append(tasks, t)
		}
	}
	if len(tasks) == 0 && !r.diags.HasErrors() {
		r.diags = append(r.diags, diag.Errorf(diag.MissingFile, root.at("tasks"),
			"no run file under %s: MLCube 1.0 runs a task of this cube through one", dir).
			WithDetail("A run file has schema_type: mlcube_invoke, task_name, input_binding and output_binding."))
	}
	r.nameRuns(tasks, dir)
	return r.flowOrder(tasks)
}

// nameRuns names each run file's task: its task_name when it is the only
// run file of that task, else its path under dir without .yaml, folders
// joined by '-'.
func (r *legacyReader) nameRuns(tasks []*Task, dir string) {
	runs := map[string]int{}
	for _, t := range tasks {
		runs[t.InvokeName]++
	}
	for _, t := range tasks {
		if runs[t.InvokeName] > 1 {
			rel, _ := filepath.Rel(dir, t.File)
			t.Name = strings.ReplaceAll(strings.TrimSuffix(filepath.ToSlash(rel), ".yaml"), "/", "-")
		}
	}
}

// flowOrder orders the run files: each after the ones that write what it
// reads (unless it writes what they read: then the next rule decides),
// else by the root's task list, else by path.
func (r *legacyReader) flowOrder(tasks []*Task) []*Task {
	pending := slices.Clone(tasks)
	slices.SortStableFunc(pending, func(a, b *Task) int { return r.rank(a) - r.rank(b) })
	var out []*Task
	for len(pending) > 0 {
		next := 0
		for i, t := range pending {
			if !slices.ContainsFunc(pending, func(w *Task) bool { return feeds(w, t) && !feeds(t, w) }) {
				next = i
				break
			}
		}
		out = append(out, pending[next])
		pending = slices.Delete(pending, next, next+1)
	}
	return out
}

// rank is a task's position in the root's task list; tasks it does not
// list come after.
func (r *legacyReader) rank(t *Task) int {
	if i, ok := r.order[t.InvokeName]; ok {
		return i
	}
	return len(r.order)
}

// feeds reports whether task w writes a path that task t reads: the same
// path, or one inside the other, on the same volume.
func feeds(w, t *Task) bool {
	if w == t {
		return false
	}
	for _, out := range w.Outputs {
		for _, in := range t.Inputs {
			if out.Claim == in.Claim && pathsTouch(path.Clean(out.Path), path.Clean(in.Path)) {
				return true
			}
		}
	}
	return false
}

func pathsTouch(a, b string) bool {
	return a == b || a == "." || b == "." || strings.HasPrefix(a, b+"/") || strings.HasPrefix(b, a+"/")
}
