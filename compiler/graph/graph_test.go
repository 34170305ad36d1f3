package graph

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func edgesOf(io []IO) [][]int {
	out := make([][]int, len(io))
	for j, deps := range AllEdges(io) {
		out[j] = SortedInts(deps)
	}
	return out
}

func TestInferEdges(t *testing.T) {
	cases := []struct {
		name string
		io   []IO
		want [][]int // per step, the steps it waits for
	}{
		{"read after write", []IO{{Writes: []string{"w:/data"}}, {Reads: []string{"w:/data"}}}, [][]int{{}, {0}}},
		{"a reader declared first still waits for the writer",
			[]IO{{Reads: []string{"w:/data"}}, {Writes: []string{"w:/data"}}}, [][]int{{1}, {}}},
		{"two writers of one file run in declaration order (hello_world)", []IO{
			{Reads: []string{"w:/names/alice.txt"}, Writes: []string{"w:/chats/chat.txt"}},
			{Reads: []string{"w:/names/alice.txt"}, Writes: []string{"w:/chats/chat.txt"}},
		}, [][]int{{}, {0}}},
		{"a file inside a written folder", []IO{{Writes: []string{"w:/data"}}, {Reads: []string{"w:/data/raw.txt"}}},
			[][]int{{}, {0}}},
		{"a sibling with a shared prefix is not inside", []IO{{Writes: []string{"w:/data"}}, {Reads: []string{"w:/data2"}}},
			[][]int{{}, {}}},
		{"other volumes do not touch", []IO{{Writes: []string{"a:/data"}}, {Reads: []string{"b:/data"}}}, [][]int{{}, {}}},
		{"readers only run in parallel", []IO{{Reads: []string{"w:/data"}}, {Reads: []string{"w:/data"}}}, [][]int{{}, {}}},
		{"the workspace root overlaps everything", []IO{{Writes: []string{"w:/"}}, {Reads: []string{"w:/x"}}},
			[][]int{{}, {0}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, edgesOf(tc.io)); diff != "" {
				t.Errorf("edges (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(closure(pairEdges(tc.io)), closure(InferEdges(tc.io))); diff != "" {
				t.Errorf("InferEdges's closure (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCycleAndOrder(t *testing.T) {
	names := []string{"c", "a", "b"}
	edges := []map[int]bool{{}, {0: true}, {0: true, 1: true}}
	if cyc := FindCycle(names, edges); cyc != nil {
		t.Fatalf("unexpected cycle %v", cyc)
	}
	order := TopoOrder(names, edges)
	if got := []string{names[order[0]], names[order[1]], names[order[2]]}; strings.Join(got, ",") != "c,a,b" {
		t.Fatalf("order %v", got)
	}
	reduced := Reduce(order, edges)
	if len(reduced[2]) != 1 || !reduced[2][1] {
		t.Fatalf("b should keep only its edge to a, got %v", reduced[2])
	}
	// c waits for b, a for c, b for a.
	cyc := FindCycle(names, []map[int]bool{{2: true}, {0: true}, {1: true}})
	if strings.Join(cyc, " -> ") != "c -> a -> b -> c" {
		t.Fatalf("cycle %v", cyc)
	}
}

func TestTopoOrderBreaksTiesByName(t *testing.T) {
	names := []string{"zeta", "alpha", "mid"}
	order := TopoOrder(names, []map[int]bool{{}, {}, {}})
	if got := names[order[0]] + "," + names[order[1]] + "," + names[order[2]]; got != "alpha,mid,zeta" {
		t.Fatalf("order %s", got)
	}
}

// TestGraphAgainstPairs compares AllEdges, InferEdges, TopoOrder and
// reduce with the plain definitions, which compare every pair of steps,
// on random pipelines: nested and sibling folders, shared writes and the
// root. InferEdges leaves out implied edges: its edges are path flow's,
// with path flow's transitive closure.
func TestGraphAgainstPairs(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	paths := []string{"w:/", "w:/a", "w:/a/b", "w:/a/b/c", "w:/a/bc", "w:/ab", "w:/d", "w:/d/e", "v:/a", "v:/", "w:/../a"}
	pick := func() []string {
		var out []string
		for k := rng.IntN(3); k > 0; k-- {
			out = append(out, paths[rng.IntN(len(paths))])
		}
		return out
	}
	for round := 0; round < 300; round++ {
		n := 1 + rng.IntN(12)
		if round%20 == 0 {
			n = 150 // sets that span several words
		}
		io := make([]IO, n)
		names := make([]string, len(io))
		for i := range io {
			io[i] = IO{Reads: pick(), Writes: pick()}
			names[i] = fmt.Sprintf("s%02d", rng.IntN(100)*100+i)
		}
		all, want := AllEdges(io), pairEdges(io)
		if diff := cmp.Diff(want, all, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("%+v: edges (-want +got):\n%s", io, diff)
		}
		checkInferred(t, io, names, want)
	}
}

// checkInferred checks InferEdges on io against want, every pair path
// flow orders: a subset of want with want's closure, the same cycles,
// order and reduction.
func checkInferred(t *testing.T, io []IO, names []string, want []map[int]bool) {
	t.Helper()
	got := InferEdges(io)
	for j := range got {
		for d := range got[j] {
			if !want[j][d] {
				t.Fatalf("%+v: step %d waits for %d, which path flow does not order", io, j, d)
			}
		}
	}
	if diff := cmp.Diff(closure(want), closure(got)); diff != "" {
		t.Fatalf("%+v: closure (-want +got):\n%s", io, diff)
	}
	if (FindCycle(names, got) == nil) != (FindCycle(names, want) == nil) {
		t.Fatalf("%+v: a cycle in one and not the other", io)
	}
	if FindCycle(names, got) != nil {
		return
	}
	order := TopoOrder(names, got)
	if diff := cmp.Diff(pairOrder(names, want), order); diff != "" {
		t.Fatalf("%+v: order (-want +got):\n%s", io, diff)
	}
	if diff := cmp.Diff(pairReduce(order, want), Reduce(order, got), cmpopts.EquateEmpty()); diff != "" {
		t.Fatalf("%+v: reduced (-want +got):\n%s", io, diff)
	}
}

// closure lists, for each step, every step it waits for directly or not.
func closure(edges []map[int]bool) [][]int {
	out := make([][]int, len(edges))
	for n := range edges {
		seen := map[int]bool{}
		var visit func(int)
		visit = func(m int) {
			for d := range edges[m] {
				if !seen[d] {
					seen[d] = true
					visit(d)
				}
			}
		}
		visit(n)
		out[n] = SortedInts(seen)
	}
	return out
}

// pairEdges is path flow by its definition, over every pair of steps.
func pairEdges(io []IO) []map[int]bool {
	overlaps := func(a, b string) bool {
		if len(a) > len(b) {
			a, b = b, a
		}
		return strings.HasPrefix(b, a) && (len(a) == len(b) || strings.HasSuffix(a, "/") || b[len(a)] == '/')
	}
	any := func(as, bs []string) bool {
		for _, a := range as {
			for _, b := range bs {
				if overlaps(a, b) {
					return true
				}
			}
		}
		return false
	}
	edges := make([]map[int]bool, len(io))
	for i := range edges {
		edges[i] = map[int]bool{}
	}
	for i := range io {
		for j := i + 1; j < len(io); j++ {
			ww := any(io[i].Writes, io[j].Writes)
			if ww || any(io[i].Writes, io[j].Reads) {
				edges[j][i] = true
			}
			if !ww && any(io[j].Writes, io[i].Reads) {
				edges[i][j] = true
			}
		}
	}
	return edges
}

// pairOrder is TopoOrder by sorting the ready steps at every turn.
func pairOrder(names []string, edges []map[int]bool) []int {
	waiting := make([]int, len(names))
	for j, deps := range edges {
		waiting[j] = len(deps)
	}
	var order []int
	done := map[int]bool{}
	for len(order) < len(names) {
		var ready []int
		for j := range names {
			if !done[j] && waiting[j] == 0 {
				ready = append(ready, j)
			}
		}
		sort.Slice(ready, func(a, b int) bool { return names[ready[a]] < names[ready[b]] })
		n := ready[0]
		done[n] = true
		order = append(order, n)
		for j, deps := range edges {
			if deps[n] {
				waiting[j]--
			}
		}
	}
	return order
}

// pairReduce drops a dependency that is an ancestor of another one.
func pairReduce(order []int, edges []map[int]bool) []map[int]bool {
	memo := map[int]map[int]bool{}
	var ancestors func(n int) map[int]bool
	ancestors = func(n int) map[int]bool {
		if out, ok := memo[n]; ok {
			return out
		}
		out := map[int]bool{}
		memo[n] = out
		for d := range edges[n] {
			out[d] = true
			for a := range ancestors(d) {
				out[a] = true
			}
		}
		return out
	}
	out := make([]map[int]bool, len(edges))
	for n, deps := range edges {
		out[n] = map[int]bool{}
		for d := range deps {
			implied := false
			for other := range deps {
				implied = implied || (other != d && ancestors(other)[d])
			}
			if !implied {
				out[n][d] = true
			}
		}
	}
	return out
}
