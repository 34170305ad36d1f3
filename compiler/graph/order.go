package graph

import (
	"container/heap"
	"sort"
)

// FindCycle returns the steps of one dependency cycle, in order, with the
// first step repeated at the end; nil when there is none.
func FindCycle(names []string, edges []map[int]bool) []string {
	const (
		unseen = iota
		active
		done
	)
	state := make([]int, len(names))
	var stack []int
	var cycle []string
	var visit func(n int) bool
	visit = func(n int) bool {
		state[n] = active
		stack = append(stack, n)
		for _, d := range SortedInts(edges[n]) {
			switch state[d] {
			case active:
				for k := len(stack) - 1; k >= 0; k-- {
					if stack[k] == d {
						for _, s := range stack[k:] {
							cycle = append(cycle, names[s])
						}
						cycle = append(cycle, names[d])
						return true
					}
				}
			case unseen:
				if visit(d) {
					return true
				}
			}
		}
		stack = stack[:len(stack)-1]
		state[n] = done
		return false
	}
	for n := range names {
		if state[n] == unseen && visit(n) {
			// The walk follows "waits for" edges; print the cycle in run order.
			for l, r := 0, len(cycle)-1; l < r; l, r = l+1, r-1 {
				cycle[l], cycle[r] = cycle[r], cycle[l]
			}
			return cycle
		}
	}
	return nil
}

// TopoOrder orders an acyclic graph so that every step follows the steps it
// waits for, breaking ties by name.
func TopoOrder(names []string, edges []map[int]bool) []int {
	waiting := make([]int, len(names))
	next := make([][]int, len(names))
	for j, deps := range edges {
		waiting[j] = len(deps)
		for i := range deps {
			next[i] = append(next[i], j)
		}
	}
	ready := &byName{names: names}
	for j := range names {
		if waiting[j] == 0 {
			ready.steps = append(ready.steps, j)
		}
	}
	heap.Init(ready)
	order := make([]int, 0, len(names))
	for ready.Len() > 0 {
		n := heap.Pop(ready).(int)
		order = append(order, n)
		for _, j := range next[n] {
			if waiting[j]--; waiting[j] == 0 {
				heap.Push(ready, j)
			}
		}
	}
	return order
}

// byName is a heap of steps, the first by name on top: the steps ready
// to run, of which TopoOrder takes the first each time.
type byName struct {
	names []string
	steps []int
}

func (h *byName) Len() int           { return len(h.steps) }
func (h *byName) Less(a, b int) bool { return h.names[h.steps[a]] < h.names[h.steps[b]] }
func (h *byName) Swap(a, b int)      { h.steps[a], h.steps[b] = h.steps[b], h.steps[a] }
func (h *byName) Push(x any)         { h.steps = append(h.steps, x.(int)) }
func (h *byName) Pop() any {
	n := h.steps[len(h.steps)-1]
	h.steps = h.steps[:len(h.steps)-1]
	return n
}

func SortedInts(m map[int]bool) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Ints(out)
	return out
}
