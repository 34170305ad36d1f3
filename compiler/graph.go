package compiler

import (
	"sort"
	"strings"
)

// stepIO is what one step reads and writes, as volume-qualified paths.
type stepIO struct {
	reads, writes []string
}

// overlaps reports whether two volume-qualified paths touch the same data:
// the same path, or one inside the other.
func overlaps(a, b string) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	if !strings.HasPrefix(b, a) {
		return false
	}
	return len(a) == len(b) || strings.HasSuffix(a, "/") || b[len(a)] == '/'
}

func anyOverlap(as, bs []string) bool {
	for _, a := range as {
		for _, b := range bs {
			if overlaps(a, b) {
				return true
			}
		}
	}
	return false
}

// qualify names a cleaned relative path on a volume, for comparing paths;
// "" is the volume's root. A path that climbs out with ".." stays apart
// from the path it would shadow inside the volume.
func qualify(volume, rel string) string {
	return volume + ":/" + rel
}

// inferEdges returns the edges that path flow implies between steps given
// in declaration order: edges[j] holds the steps j must wait for.
//   - A step that reads what another writes runs after it.
//   - Two steps that write the same path run in declaration order, never
//     at once; the later one also waits when it reads what the earlier wrote.
func inferEdges(io []stepIO) []map[int]bool {
	edges := make([]map[int]bool, len(io))
	for i := range edges {
		edges[i] = map[int]bool{}
	}
	for i := range io {
		for j := i + 1; j < len(io); j++ {
			ww := anyOverlap(io[i].writes, io[j].writes)
			if ww || anyOverlap(io[i].writes, io[j].reads) {
				edges[j][i] = true
			}
			if !ww && anyOverlap(io[j].writes, io[i].reads) {
				edges[i][j] = true
			}
		}
	}
	return edges
}

// findCycle returns the steps of one dependency cycle, in order, with the
// first step repeated at the end; nil when there is none.
func findCycle(names []string, edges []map[int]bool) []string {
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
		for _, d := range sortedInts(edges[n]) {
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

// topoOrder orders an acyclic graph so that every step follows the steps it
// waits for, breaking ties by name.
func topoOrder(names []string, edges []map[int]bool) []int {
	waiting := make([]int, len(names))
	next := make([][]int, len(names))
	for j, deps := range edges {
		waiting[j] = len(deps)
		for i := range deps {
			next[i] = append(next[i], j)
		}
	}
	var ready, order []int
	for j := range names {
		if waiting[j] == 0 {
			ready = append(ready, j)
		}
	}
	for len(ready) > 0 {
		sort.Slice(ready, func(a, b int) bool { return names[ready[a]] < names[ready[b]] })
		n := ready[0]
		ready = ready[1:]
		order = append(order, n)
		for _, j := range next[n] {
			if waiting[j]--; waiting[j] == 0 {
				ready = append(ready, j)
			}
		}
	}
	return order
}

// reduce drops each dependency that another dependency already implies,
// so that manifests list only the edges that matter. Ancestor sets are
// bitsets: a chain of n steps costs n²/8 bytes, not n² map entries.
func reduce(order []int, edges []map[int]bool) []map[int]bool {
	words := (len(edges) + 63) / 64
	ancestors := make([][]uint64, len(edges))
	for _, n := range order {
		anc := make([]uint64, words)
		for d := range edges[n] {
			anc[d/64] |= 1 << (d % 64)
			for w, bits := range ancestors[d] {
				anc[w] |= bits
			}
		}
		ancestors[n] = anc
	}
	out := make([]map[int]bool, len(edges))
	for n, deps := range edges {
		out[n] = map[int]bool{}
		for d := range deps {
			implied := false
			for other := range deps {
				if other != d && ancestors[other][d/64]&(1<<(d%64)) != 0 {
					implied = true
					break
				}
			}
			if !implied {
				out[n][d] = true
			}
		}
	}
	return out
}

func sortedInts(m map[int]bool) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Ints(out)
	return out
}
