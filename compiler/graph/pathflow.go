package graph

import "strings"

// IO is what one step reads and writes, as volume-qualified paths.
type IO struct {
	Reads, Writes []string
}

// Qualify names a cleaned relative path on a volume, for comparing paths;
// "" is the volume's root. A path that climbs out with ".." stays apart
// from the path it would shadow inside the volume.
func Qualify(volume, rel string) string {
	return volume + ":/" + rel
}

// InferEdges returns dependencies in path flow's order between steps
// given in declaration order: edges[j] holds steps j must wait for.
//   - A step that reads what another writes runs after it.
//   - Two steps that write the same path run in declaration order, never
//     at once; the later one also waits when it reads what the earlier wrote.
//
// Two paths touch the same data when they are the same path or one is
// inside the other. InferEdges leaves out a dependency that others already
// imply: when steps 0, 1 and 2 all write out/, 2 waits for 1 and 1 for 0,
// and 2 does not name 0. Its edges have the transitive closure of every
// pair path flow orders (AllEdges), so the same cycles, the same
// topological order and the same transitive reduction, and they are as
// many as the steps and paths, not their square, when many steps share a
// path. Earlier writers are found by a sweep in declaration order
// (earlier.go), later ones in an index of every written path (later.go).
func InferEdges(io []IO) []map[int]bool {
	edges := make([]map[int]bool, len(io))
	for j := range edges {
		edges[j] = map[int]bool{}
	}
	waitForEarlier(io, edges)
	later := indexWrites(io)
	for i, s := range io {
		for _, r := range s.Reads {
			later.waitForLater(i, r, edges[i])
		}
	}
	return edges
}

// AllEdges returns every pair of steps path flow orders, as InferEdges
// defines it: edges[j] holds every step j waits for. It costs the square
// of the steps that share a path; it names a cycle the way it always has
// been named, once InferEdges's edges have shown there is one.
//
// The written paths are indexed by folder, so each path meets only the
// writes that touch it, not every other step.
func AllEdges(io []IO) []map[int]bool {
	written := &pathNode{}
	for i, s := range io {
		for _, w := range s.Writes {
			written.add(w, i)
		}
	}
	edges := make([]map[int]bool, len(io))
	for j := range edges {
		edges[j] = map[int]bool{}
	}
	// sameWrites[j] holds the steps that write what j writes.
	sameWrites := make([]map[int]bool, len(io))
	for j, s := range io {
		for _, w := range s.Writes {
			written.touching(w, func(k int) {
				if k == j {
					return
				}
				if sameWrites[j] == nil {
					sameWrites[j] = map[int]bool{}
				}
				sameWrites[j][k] = true
				if k < j {
					edges[j][k] = true
				}
			})
		}
	}
	for j, s := range io {
		for _, r := range s.Reads {
			// k writes what j reads: j waits, unless k comes later and
			// they also write the same data, when k waits for j instead.
			written.touching(r, func(k int) {
				if k < j || (k > j && !sameWrites[j][k]) {
					edges[j][k] = true
				}
			})
		}
	}
	return edges
}

// pathNode is a folder of written paths: the steps that write it, and the
// paths below it by their next name.
type pathNode struct {
	writers []int
	below   map[string]*pathNode
}

// pathNames splits a volume-qualified path into its names; the volume's
// root is the volume alone.
func pathNames(p string) []string {
	return strings.Split(strings.TrimSuffix(p, "/"), "/")
}

// add records that step writes the path p.
func (n *pathNode) add(p string, step int) {
	for _, name := range pathNames(p) {
		next := n.below[name]
		if next == nil {
			if n.below == nil {
				n.below = map[string]*pathNode{}
			}
			next = &pathNode{}
			n.below[name] = next
		}
		n = next
	}
	n.writers = append(n.writers, step)
}

// touching calls fn for each step that writes p, a folder p is inside,
// or a path inside p; a step may come more than once.
func (n *pathNode) touching(p string, fn func(step int)) {
	for _, name := range pathNames(p) {
		n = n.below[name]
		if n == nil {
			return
		}
		for _, s := range n.writers {
			fn(s)
		}
	}
	for _, child := range n.below {
		child.each(fn)
	}
}

// each calls fn for every step that writes this path or one below it.
func (n *pathNode) each(fn func(step int)) {
	for _, s := range n.writers {
		fn(s)
	}
	for _, child := range n.below {
		child.each(fn)
	}
}

// Touch reports whether two volume-qualified paths touch the same data:
// they are the same path, or one is inside the other.
func Touch(a, b string) bool {
	a, b = strings.TrimSuffix(a, "/"), strings.TrimSuffix(b, "/")
	return a == b || strings.HasPrefix(b, a+"/") || strings.HasPrefix(a, b+"/")
}
