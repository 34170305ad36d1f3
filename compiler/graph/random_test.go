package graph_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mlcube-compile/mlcube-compile/compiler"
	"github.com/mlcube-compile/mlcube-compile/compiler/graph"
	"github.com/mlcube-compile/mlcube-compile/internal/specgen"
)

// randomPipelines is how many random pipelines each property test checks.
const randomPipelines = 300

// TestRandomPipelinesReduceAsDefined compiles random valid pipelines
// (specgen.Random: overlapping writers and readers, folders inside
// folders, after:) and checks each step's dependencies against path flow
// and after: by their pairwise definitions, transitively reduced by brute
// force (pairEdges, pairReduce).
func TestRandomPipelinesReduceAsDefined(t *testing.T) {
	dir := t.TempDir()
	cube := filepath.Join(dir, "mlcube.yaml")
	os.WriteFile(cube, []byte(specgen.Cube), 0o644)
	edgesSeen := 0
	for seed := uint64(1); seed <= randomPipelines; seed++ {
		n := 1 + int(seed%13)
		text, steps := specgen.Random(seed, n)
		file := filepath.Join(dir, fmt.Sprintf("p%d.yaml", seed))
		os.WriteFile(file, []byte(text), 0o644)
		p, diags := compiler.Compile(compiler.Options{MLCube: cube, Task: file})
		if diags.HasErrors() {
			t.Fatalf("seed %d: %v\n%s", seed, diags, text)
		}
		io := make([]graph.IO, n)
		names := make([]string, n)
		for i, s := range steps {
			io[i] = graph.IO{Reads: []string{"w:/" + strings.TrimSuffix(s.Read, "/")},
				Writes: []string{"w:/" + strings.TrimSuffix(s.Write, "/")}}
			names[i] = s.Name
		}
		edges := graph.PairEdges(io)
		for i, s := range steps {
			for _, a := range s.After {
				edges[i][a] = true
			}
		}
		want := graph.PairReduce(graph.PairOrder(names, edges), edges)
		got := map[string][]string{}
		for _, s := range p.Steps {
			got[s.Name] = s.Dependencies
			edgesSeen += len(s.Dependencies)
		}
		for i, name := range names {
			var deps []string
			for d := range want[i] {
				deps = append(deps, names[d])
			}
			slices.Sort(deps)
			if diff := cmp.Diff(deps, got[name], cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("seed %d: step %s's dependencies (-want +got):\n%s\n%s", seed, name, diff, text)
			}
		}
	}
	t.Logf("%d random pipelines, %d dependencies, each as path flow and after: define them", randomPipelines, edgesSeen)
}
