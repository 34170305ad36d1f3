package graph

// reduce drops each dependency that another dependency already implies,
// so that manifests list only the edges that matter. Steps are taken in
// order; each keeps the set of its ancestors, as a bitset over the steps
// it spans, until the last step that waits for it is done. A step that
// alone waits for its one dependency takes over that step's set, so a
// chain of n steps grows one set, and a fan of n steps holds n sets of a
// word each.
func Reduce(order []int, edges []map[int]bool) []map[int]bool {
	waiters := make([]int, len(edges))
	for _, deps := range edges {
		for d := range deps {
			waiters[d]++
		}
	}
	ancestors := make([]bitset, len(edges))
	out := make([]map[int]bool, len(edges))
	for _, n := range order {
		deps := edges[n]
		// above holds every ancestor of a dependency: a dependency in it
		// is implied by another.
		sets := make([]bitset, 0, len(deps))
		only := 0
		for d := range deps {
			sets = append(sets, ancestors[d])
			only = d
		}
		above := ancestors[only]
		if len(deps) != 1 {
			above = union(sets, nil)
		}
		out[n] = map[int]bool{}
		for d := range deps {
			if !above.has(d) {
				out[n][d] = true
			}
		}
		switch {
		case waiters[n] == 0:
		case len(deps) == 1 && waiters[only] == 1:
			ancestors[n] = above.with(only)
		default:
			ancestors[n] = union([]bitset{above}, deps)
		}
		for d := range deps {
			if waiters[d]--; waiters[d] == 0 {
				ancestors[d] = bitset{}
			}
		}
	}
	return out
}

// bitset is a set of steps: bit i of words[w] is step 64*(first+w)+i.
type bitset struct {
	first int
	words []uint64
}

func (b bitset) has(step int) bool {
	w := step/64 - b.first
	return w >= 0 && w < len(b.words) && b.words[w]&(1<<(step%64)) != 0
}

// with adds step to b, reusing b's words where it can.
func (b bitset) with(step int) bitset {
	w := step / 64
	switch {
	case len(b.words) == 0:
		b = bitset{first: w, words: make([]uint64, 1)}
	case w < b.first:
		return union([]bitset{b}, map[int]bool{step: true})
	}
	for w-b.first >= len(b.words) {
		b.words = append(b.words, 0)
	}
	b.words[w-b.first] |= 1 << (step % 64)
	return b
}

// union is the union of the sets and the steps in also.
func union(sets []bitset, also map[int]bool) bitset {
	lo, hi := -1, -1
	span := func(first, end int) {
		if lo < 0 || first < lo {
			lo = first
		}
		if end > hi {
			hi = end
		}
	}
	for _, s := range sets {
		if len(s.words) > 0 {
			span(s.first, s.first+len(s.words))
		}
	}
	for step := range also {
		span(step/64, step/64+1)
	}
	if lo < 0 {
		return bitset{}
	}
	out := bitset{first: lo, words: make([]uint64, hi-lo)}
	for _, s := range sets {
		for w, bits := range s.words {
			out.words[s.first+w-lo] |= bits
		}
	}
	for step := range also {
		out.words[step/64-lo] |= 1 << (step % 64)
	}
	return out
}
