package lower

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mlcube-compile/mlcube-compile/compiler/graph"
	"github.com/mlcube-compile/mlcube-compile/compiler/spec"
)

// taskOverlaps warns, for every task of a cube run without --task, where
// path flow's order rests on nothing but the order the file lists the
// tasks in: two tasks that write overlapping paths (the later waits for
// the earlier; unless it reads what the earlier writes, directly or
// through tasks between them), and a task that reads a path several tasks write (it
// waits for all of them, whatever they are for). Each warning names the
// tasks and where they are, and how to pin the order.
func (lw *lowering) taskOverlaps(io []graph.IO) {
	steps := lw.spec.Steps
	if lw.spec.Tasks != spec.EveryTask || len(steps) < 2 || len(io) != len(steps) {
		return
	}
	names := make([]string, len(steps))
	for i, st := range steps {
		names[i] = st.Name
	}
	pin := fmt.Sprintf("pin the order with --task %s (listed in the order they run) or a pipeline file", strings.Join(names, ","))
	for j := range steps {
		var earlier, paths []string
		for i := 0; i < j; i++ {
			if w, ok := firstTouch(io[j].Writes, io[i].Writes); ok && !readsFrom(io, i, j) {
				earlier = append(earlier, names[i]+" ("+where(steps[i])+")")
				if !slices.Contains(paths, shown(w)) {
					paths = append(paths, shown(w))
				}
			}
		}
		if len(earlier) > 0 {
			lw.warnf(steps[j].Loc, "task %s writes %s, which %s %s too, so path flow runs %s after %s only because the file lists it later; %s", names[j], strings.Join(paths, ", "), strings.Join(earlier, ", "), writeVerb(earlier), names[j], pronoun(earlier), pin)
		}
	}
	for k := range steps {
		for _, r := range io[k].Reads {
			var writers []string
			for i := range steps {
				if _, ok := firstTouch([]string{r}, io[i].Writes); ok && i != k {
					writers = append(writers, names[i]+" ("+where(steps[i])+")")
				}
			}
			if len(writers) > 1 {
				lw.warnf(steps[k].Loc, "task %s reads %s, which %s all write, so it waits for each of them; %s", names[k], shown(r), strings.Join(writers, ", "), pin)
				break
			}
		}
	}
}

// readsFrom reports whether task j reads, directly or through a chain of
// tasks each reading what the one before it writes, what task i writes:
// then j runs after i for its data, whatever order the file lists them in.
func readsFrom(io []graph.IO, i, j int) bool {
	seen := map[int]bool{i: true}
	for queue := []int{i}; len(queue) > 0; queue = queue[1:] {
		for m := queue[0] + 1; m <= j; m++ {
			if _, ok := firstTouch(io[m].Reads, io[queue[0]].Writes); ok && !seen[m] {
				if m == j {
					return true
				}
				seen[m] = true
				queue = append(queue, m)
			}
		}
	}
	return false
}

// writeVerb and pronoun agree with one task or several.
func writeVerb(tasks []string) string {
	if len(tasks) == 1 {
		return "writes"
	}
	return "write"
}

func pronoun(tasks []string) string {
	if len(tasks) == 1 {
		return "it"
	}
	return "them"
}

// firstTouch returns the first path of as that touches a path of bs:
// the same path, or one inside the other.
func firstTouch(as, bs []string) (string, bool) {
	for _, a := range as {
		for _, b := range bs {
			if graph.Touch(a, b) {
				return a, true
			}
		}
	}
	return "", false
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
