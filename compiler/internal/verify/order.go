package verify

import (
	"maps"
	"slices"
	"strings"

	"github.com/mlcube-compile/mlcube-compile/compiler/graph"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// after refuses an after: that names no step, and a step that names
// itself.
func (v *verifier) after() {
	written := map[string]bool{}
	for _, s := range v.p.Steps {
		written[s.Written] = true
	}
	names := slices.Sorted(maps.Keys(written))
	for _, s := range v.p.Steps {
		for k, a := range s.After {
			at := s.Loc.Field("after").Index(k)
			switch {
			case !written[a]:
				v.diags = append(v.diags,
					diag.Errorf(diag.UnknownName, at, "no step %q (steps: %s)", a, strings.Join(names, ", ")).WithSuggestion(a, names))
			case a == s.Written:
				v.errorf(diag.DependencyCycle, at, "a step cannot run after itself")
			}
		}
	}
}

// cycle refuses a dependency cycle, named by the steps as written and
// reported at its first step, and says whether there is one. Lowering
// leaves a pipeline with a cycle in the order its spec writes, each step
// depending on every step it reads from or is after, so that the cycle
// found is the one written.
func (v *verifier) cycle() bool {
	steps := v.p.Steps
	index := map[string]int{}
	names := make([]string, len(steps))
	for i, s := range steps {
		index[s.Name], names[i] = i, s.Written
	}
	edges := make([]map[int]bool, len(steps))
	for i, s := range steps {
		edges[i] = map[int]bool{}
		for _, d := range s.Dependencies {
			edges[i][index[d]] = true
		}
	}
	cycle := graph.FindCycle(names, edges)
	if cycle == nil {
		return false
	}
	first := steps[slices.Index(names, cycle[0])]
	v.errorf(diag.DependencyCycle, first.Loc, "dependency cycle: %s", strings.Join(cycle, " -> "))
	return true
}
