package graph

import "sort"

// writeIndex is every written path as a tree of folders, for finding the
// later steps that write what a step reads: path flow makes a reader wait
// for a writer declared after it too, unless the two also write the same
// data, when the writer waits for the reader instead.
type writeIndex struct {
	root *folder
	// writes[i] holds the folders step i writes.
	writes [][]*folder
}

// folder is a written path: the steps that write it, in declaration
// order, and the paths below it. Its span is its number and the largest
// number below it, in a walk that numbers a folder before those below
// it, so a folder is inside another when its number is in the other's
// span. latest is the last step that writes it or a path below it;
// children are the folders below it, the latest first.
type folder struct {
	writers     []int
	below       map[string]*folder
	children    []*folder
	first, last int
	latest      int
}

// indexWrites indexes the paths every step writes.
func indexWrites(io []IO) *writeIndex {
	x := &writeIndex{root: &folder{}, writes: make([][]*folder, len(io))}
	for i, s := range io {
		for _, w := range s.Writes {
			f := x.root
			for _, name := range pathNames(w) {
				next := f.below[name]
				if next == nil {
					if f.below == nil {
						f.below = map[string]*folder{}
					}
					next = &folder{}
					f.below[name] = next
				}
				f = next
			}
			if k := len(f.writers); k == 0 || f.writers[k-1] != i {
				f.writers = append(f.writers, i)
			}
			x.writes[i] = append(x.writes[i], f)
		}
	}
	x.root.number(0)
	return x
}

// number numbers f and the folders below it from n, sets their latest
// writers and sorts their children; it returns the next number.
func (f *folder) number(n int) int {
	f.first, f.latest = n, -1
	if k := len(f.writers); k > 0 {
		f.latest = f.writers[k-1]
	}
	n++
	for _, c := range f.below {
		n = c.number(n)
		f.latest = max(f.latest, c.latest)
		f.children = append(f.children, c)
	}
	sort.Slice(f.children, func(a, b int) bool { return f.children[a].latest > f.children[b].latest })
	f.last = n - 1
	return n
}

// holds reports whether g is f or inside it.
func (f *folder) holds(g *folder) bool { return f.first <= g.first && g.first <= f.last }

// waitForLater adds to deps the steps declared after step i that write
// what p, one of its reads, touches and that write nothing i writes,
// leaving out each writer that a later writer of a folder around it
// covers: the earlier of the two runs first (they write the same data),
// and i waits for the later.
func (x *writeIndex) waitForLater(i int, p string, deps map[int]bool) {
	f, after := x.root, i
	for _, name := range pathNames(p) {
		f = f.below[name]
		if f == nil || x.writesAround(i, f) {
			return
		}
		if w := x.lastWriter(i, f, after); w >= 0 {
			deps[w], after = true, w
		}
	}
	x.waitBelow(i, f, after, deps)
}

// waitBelow is waitForLater for the folders below f, where every writer
// up to after is covered.
func (x *writeIndex) waitBelow(i int, f *folder, after int, deps map[int]bool) {
	for _, c := range f.children {
		if c.latest <= after {
			return
		}
		if x.writesAround(i, c) {
			continue
		}
		next := after
		if w := x.lastWriter(i, c, after); w >= 0 {
			deps[w], next = true, w
		}
		x.waitBelow(i, c, next, deps)
	}
}

// lastWriter is the last writer of f declared after after that writes
// nothing step i writes; -1 if there is none.
func (x *writeIndex) lastWriter(i int, f *folder, after int) int {
	for _, g := range x.writes[i] {
		if g.holds(f) || f.holds(g) {
			return -1 // every writer of f writes what i writes
		}
	}
	for k := len(f.writers) - 1; k >= 0 && f.writers[k] > after; k-- {
		if j := f.writers[k]; !x.sameWrites(i, j) {
			return j
		}
	}
	return -1
}

// writesAround reports whether step i writes f or a folder f is in: then
// every writer of f or of a path below it writes what i writes.
func (x *writeIndex) writesAround(i int, f *folder) bool {
	for _, g := range x.writes[i] {
		if g.holds(f) {
			return true
		}
	}
	return false
}

// sameWrites reports whether steps i and j write paths that touch.
func (x *writeIndex) sameWrites(i, j int) bool {
	for _, a := range x.writes[i] {
		for _, b := range x.writes[j] {
			if a.holds(b) || b.holds(a) {
				return true
			}
		}
	}
	return false
}
