package lower

import (
	"fmt"
	"strings"

	"github.com/mlcube-compile/mlcube-compile/compiler/graph"
	"github.com/mlcube-compile/mlcube-compile/compiler/internal/spec"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// listOrder warns, for a --task list, where a task runs before a task
// listed after it that writes what it reads (its read path or a path
// inside it: an output such as ./, which holds every path, says nothing
// of which the task writes): the list runs as written,
// as mlcube run --task does, so the reader sees what was there before
// the writer ran. Each warning names both tasks, where they are, and
// the list that runs the writer first.
func listOrder(ps *spec.Pipeline, io []graph.IO) diag.Diagnostics {
	steps := ps.Steps
	if ps.Tasks != spec.InOrder || len(io) != len(steps) {
		return nil
	}
	var diags diag.Diagnostics
	for j := range steps {
		for k := j + 1; k < len(steps); k++ {
			r, ok := firstWithin(io[k].Writes, io[j].Reads)
			if !ok {
				continue
			}
			diags = append(diags, diag.Warnf(diag.TaskBeforeWriter, steps[j].Loc,
				"task %s reads %s, which task %s (%s) writes, but the --task list runs %s first",
				taskName(steps[j]), shown(r), taskName(steps[k]), where(steps[k]), taskName(steps[j])).
				WithFix(fmt.Sprintf("list %s earlier if %s needs its output (--task %s)", taskName(steps[k]),
					taskName(steps[j]), writerFirst(steps, j, k))).
				WithDetail("Task %s then reads what was there before %s ran.", taskName(steps[j]), taskName(steps[k])))
			break
		}
	}
	return diags
}

// firstWithin returns the first path of reads that a path of writes is,
// or lies inside.
func firstWithin(writes, reads []string) (string, bool) {
	for _, r := range reads {
		for _, w := range writes {
			if graph.Touch(w, r) && len(strings.TrimSuffix(w, "/")) >= len(strings.TrimSuffix(r, "/")) {
				return r, true
			}
		}
	}
	return "", false
}

// writerFirst is the --task list with task k moved just before task j.
func writerFirst(steps []*spec.Step, j, k int) string {
	var names []string
	for i, st := range steps {
		switch {
		case i == k:
			continue
		case i == j:
			names = append(names, taskName(steps[k]))
		}
		names = append(names, taskName(st))
	}
	return strings.Join(names, ",")
}

// where is the file and line a step's task is written at.
func where(st *spec.Step) string {
	p := st.Loc.Pos()
	return fmt.Sprintf("%s:%d", p.File, p.Line)
}

// shown writes a volume-qualified path as the task writes it.
func shown(p string) string {
	_, rel, _ := strings.Cut(p, ":/")
	if rel == "" {
		return "the whole volume"
	}
	return rel
}

// taskName is a step's task as --task takes it (sanity_check, where the
// step is sanity-check).
func taskName(st *spec.Step) string {
	if st.Task != nil {
		return st.Task.Name
	}
	return st.Name
}
