package graph

// lastWrite is a folder of the paths written so far, in a sweep of the
// steps in declaration order: the last step to write the folder itself
// (-1 for none), and the folders below it written since.
//
// When a step writes a folder, every earlier write at or below it is
// forgotten: the earlier writer runs before this step (they write the
// same data), and whatever touches the earlier write touches this one
// too, so waiting for this step implies waiting for the earlier one.
// Each write is recorded once and forgotten at most once, so the sweep
// holds at most the paths written and meets only those not yet covered.
type lastWrite struct {
	step  int
	below map[string]*lastWrite
}

// waitForEarlier adds to edges, for each step, the earlier steps that
// write what it reads or writes, leaving out each that a later one of
// them covers (see lastWrite).
func waitForEarlier(io []IO, edges []map[int]bool) {
	root := &lastWrite{step: -1}
	for j, s := range io {
		for _, p := range s.Reads {
			root.waitFor(p, edges[j])
		}
		for _, p := range s.Writes {
			root.waitFor(p, edges[j])
		}
		for _, p := range s.Writes {
			root.record(p, j)
		}
	}
}

// waitFor adds to deps the last writer of p and of each folder p is in,
// and every writer below p not yet covered.
func (n *lastWrite) waitFor(p string, deps map[int]bool) {
	for _, name := range pathNames(p) {
		n = n.below[name]
		if n == nil {
			return
		}
		if n.step >= 0 {
			deps[n.step] = true
		}
	}
	n.eachBelow(deps)
}

// eachBelow adds to deps every writer recorded below n.
func (n *lastWrite) eachBelow(deps map[int]bool) {
	for _, child := range n.below {
		if child.step >= 0 {
			deps[child.step] = true
		}
		child.eachBelow(deps)
	}
}

// record makes step the last writer of p, forgetting the writes below p.
func (n *lastWrite) record(p string, step int) {
	for _, name := range pathNames(p) {
		next := n.below[name]
		if next == nil {
			if n.below == nil {
				n.below = map[string]*lastWrite{}
			}
			next = &lastWrite{step: -1}
			n.below[name] = next
		}
		n = next
	}
	n.step, n.below = step, nil
}
