package compiler

import (
	"fmt"
	"strings"
	"testing"
)

func edgesOf(io []stepIO) [][]int {
	out := make([][]int, len(io))
	for j, deps := range inferEdges(io) {
		out[j] = sortedInts(deps)
	}
	return out
}

func TestInferEdges(t *testing.T) {
	cases := []struct {
		name string
		io   []stepIO
		want string // per step, the steps it waits for
	}{
		{"read after write", []stepIO{{writes: []string{"w:/data"}}, {reads: []string{"w:/data"}}}, "[] [0]"},
		{"a reader declared first still waits for the writer", []stepIO{{reads: []string{"w:/data"}}, {writes: []string{"w:/data"}}}, "[1] []"},
		{"two writers of one file run in declaration order (hello_world)", []stepIO{
			{reads: []string{"w:/names/alice.txt"}, writes: []string{"w:/chats/chat.txt"}},
			{reads: []string{"w:/names/alice.txt"}, writes: []string{"w:/chats/chat.txt"}},
		}, "[] [0]"},
		{"a file inside a written folder", []stepIO{{writes: []string{"w:/data"}}, {reads: []string{"w:/data/raw.txt"}}}, "[] [0]"},
		{"a sibling with a shared prefix is not inside", []stepIO{{writes: []string{"w:/data"}}, {reads: []string{"w:/data2"}}}, "[] []"},
		{"other volumes do not touch", []stepIO{{writes: []string{"a:/data"}}, {reads: []string{"b:/data"}}}, "[] []"},
		{"readers only run in parallel", []stepIO{{reads: []string{"w:/data"}}, {reads: []string{"w:/data"}}}, "[] []"},
		{"the workspace root overlaps everything", []stepIO{{writes: []string{"w:/"}}, {reads: []string{"w:/x"}}}, "[] [0]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, e := range edgesOf(tc.io) {
				got = append(got, fmt.Sprint(e))
			}
			if g := strings.Join(got, " "); g != tc.want {
				t.Errorf("got %s, want %s", g, tc.want)
			}
		})
	}
}

func TestCycleAndOrder(t *testing.T) {
	names := []string{"c", "a", "b"}
	edges := []map[int]bool{{}, {0: true}, {0: true, 1: true}}
	if cyc := findCycle(names, edges); cyc != nil {
		t.Fatalf("unexpected cycle %v", cyc)
	}
	order := topoOrder(names, edges)
	if got := []string{names[order[0]], names[order[1]], names[order[2]]}; strings.Join(got, ",") != "c,a,b" {
		t.Fatalf("order %v", got)
	}
	reduced := reduce(order, edges)
	if len(reduced[2]) != 1 || !reduced[2][1] {
		t.Fatalf("b should keep only its edge to a, got %v", reduced[2])
	}
	// c waits for b, a for c, b for a.
	cyc := findCycle(names, []map[int]bool{{2: true}, {0: true}, {1: true}})
	if strings.Join(cyc, " -> ") != "c -> a -> b -> c" {
		t.Fatalf("cycle %v", cyc)
	}
}

func TestTopoOrderBreaksTiesByName(t *testing.T) {
	names := []string{"zeta", "alpha", "mid"}
	order := topoOrder(names, []map[int]bool{{}, {}, {}})
	if got := names[order[0]] + "," + names[order[1]] + "," + names[order[2]]; got != "alpha,mid,zeta" {
		t.Fatalf("order %s", got)
	}
}
