package graph

import (
	"slices"
	"sort"
)

// Mixed is a path two steps write and a later step reads, where nothing
// but their place in the file orders the writers.
type Mixed struct {
	// Path is the volume-qualified path both write.
	Path string
	// First and Second are the writers, in declaration order.
	First, Second int
	// Reader reads Path (or a path that touches it) after both.
	Reader int
}

// MixedWriters finds each step that reads what two steps write at one
// path when neither writer runs after the other for a reason of the
// pipeline's own: after: (after[j] holds the steps j names), or reading
// what the other writes, directly or through other steps. Path flow
// runs two writers of one path in declaration order, so the reader
// would get what the last one left, whichever it is meant to read.
// Writers that a pipeline chains itself (an in-place rewrite: the
// second reads the first's data and writes it back) are left out. The
// result is sorted by reader, path and writers.
func MixedWriters(io []IO, after [][]int) []Mixed {
	d, writers, broken := unorderedWrites(io, after)
	var out []Mixed
	for r, s := range io {
		for _, p := range broken {
			if !readsTouching(s.Reads, p) {
				continue
			}
			if a, b, ok := d.unchained(r, writers[p]); ok {
				out = append(out, Mixed{Path: p, First: a, Second: b, Reader: r})
			}
		}
	}
	return out
}

// Overwrite is a path two steps write, where nothing but their place in
// the file orders the writers and no step reads it after them: the run
// keeps what Second writes there, and First's is written over.
type Overwrite struct {
	// Path is the volume-qualified path both write.
	Path string
	// First and Second are the writers, in declaration order.
	First, Second int
}

// Overwrites finds each path two steps write when the second does not
// run after the first for a reason of the pipeline's own (after:, or
// reading what the first writes, as MixedWriters has it), and no step
// reads it in a way MixedWriters refuses: a step that reads it there
// reads one writer's data, which MixedWriters says; where none does,
// one writer's data is lost. Of a path's writers, the first two in
// declaration order that nothing orders are given. The result is sorted
// by path.
func Overwrites(io []IO, after [][]int) []Overwrite {
	d, writers, broken := unorderedWrites(io, after)
	var out []Overwrite
	for _, p := range broken {
		read := false
		for r, s := range io {
			if readsTouching(s.Reads, p) {
				if _, _, ok := d.unchained(r, writers[p]); ok {
					read = true
					break
				}
			}
		}
		if read {
			continue
		}
		ws := writers[p]
		for i := 1; i < len(ws); i++ {
			if !d.ordered(ws[i], ws[i-1]) {
				out = append(out, Overwrite{Path: p, First: ws[i-1], Second: ws[i]})
				break
			}
		}
	}
	return out
}

// unorderedWrites is the order after: and data give the steps, each
// written path's writers in declaration order, and, sorted, the paths
// whose writers do not all run one after another, each after the one
// before it. A path whose writers do mixes nothing for any reader: any
// of them run in that order too.
func unorderedWrites(io []IO, after [][]int) (*dataOrder, map[string][]int, []string) {
	writers := map[string][]int{}
	for i, s := range io {
		for _, w := range s.Writes {
			if ws := writers[w]; len(ws) == 0 || ws[len(ws)-1] != i {
				writers[w] = append(ws, i)
			}
		}
	}
	d := newDataOrder(io, after)
	var broken []string
	for p, ws := range writers {
		for i := 1; i < len(ws); i++ {
			if !d.ordered(ws[i], ws[i-1]) {
				broken = append(broken, p)
				break
			}
		}
	}
	sort.Strings(broken)
	return d, writers, broken
}

// readsTouching says whether one of reads touches p.
func readsTouching(reads []string, p string) bool {
	for _, r := range reads {
		if Touch(r, p) {
			return true
		}
	}
	return false
}

// dataOrder answers whether one step runs after another by after: or by
// reading what it writes, as path flow orders a reader.
type dataOrder struct {
	io      []IO
	after   [][]int
	written *pathNode
	preds   map[int][]int
	known   map[[2]int]bool
}

func newDataOrder(io []IO, after [][]int) *dataOrder {
	d := &dataOrder{io: io, after: after, written: &pathNode{}, preds: map[int][]int{}, known: map[[2]int]bool{}}
	for i, s := range io {
		for _, w := range s.Writes {
			d.written.add(w, i)
		}
	}
	return d
}

// unchained is, for reader r of a path ws write (in declaration order),
// the first two of the writers r waits for that nothing but the file
// orders; ok is false when every one of them runs after the one before.
// r waits, as path flow has it, for the writers before it and for those
// after it that write nothing r writes.
func (d *dataOrder) unchained(r int, ws []int) (int, int, bool) {
	var seen []int
	for _, k := range ws {
		if k != r && (k < r || !d.sameWrites(r, k)) {
			seen = append(seen, k)
		}
	}
	for i := 1; i < len(seen); i++ {
		if !d.ordered(seen[i], seen[i-1]) {
			return seen[i-1], seen[i], true
		}
	}
	return 0, 0, false
}

// sameWrites says whether steps i and j write paths that touch.
func (d *dataOrder) sameWrites(i, j int) bool {
	for _, a := range d.io[i].Writes {
		for _, b := range d.io[j].Writes {
			if Touch(a, b) {
				return true
			}
		}
	}
	return false
}

// predecessors are the steps s names in after: and those whose writes s
// reads and waits for.
func (d *dataOrder) predecessors(s int) []int {
	if ps, ok := d.preds[s]; ok {
		return ps
	}
	var ps []int
	if s < len(d.after) {
		ps = append(ps, d.after[s]...)
	}
	for _, r := range d.io[s].Reads {
		d.written.touching(r, func(k int) {
			if k != s && (k < s || !d.sameWrites(s, k)) {
				ps = append(ps, k)
			}
		})
	}
	d.preds[s] = ps
	return ps
}

// ordered says whether step b runs after step a by after: and data:
// first whether b names a or reads what a writes, then through others.
func (d *dataOrder) ordered(b, a int) bool {
	key := [2]int{b, a}
	if v, ok := d.known[key]; ok {
		return v
	}
	v := b < len(d.after) && slices.Contains(d.after[b], a)
	if !v && (a < b || !d.sameWrites(a, b)) {
		for _, r := range d.io[b].Reads {
			v = v || slices.ContainsFunc(d.io[a].Writes, func(w string) bool { return Touch(r, w) })
		}
	}
	if !v {
		v = d.reaches(b, a)
	}
	d.known[key] = v
	return v
}

// reaches says whether step from runs after step to by after: and data.
func (d *dataOrder) reaches(from, to int) bool {
	seen := map[int]bool{from: true}
	stack := []int{from}
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, p := range d.predecessors(s) {
			if p == to {
				return true
			}
			if !seen[p] {
				seen[p] = true
				stack = append(stack, p)
			}
		}
	}
	return false
}

// Unread is a path the run reads that no other step writes, and the
// steps that read it, in declaration order.
type Unread struct {
	Path    string
	Readers []int
}

// Unwritten returns the paths steps read that no other step writes (a
// step that reads and rewrites a path in place needs it there first),
// each once, in the order they are first read.
func Unwritten(io []IO) []Unread {
	written := &pathNode{}
	for i, s := range io {
		for _, w := range s.Writes {
			written.add(w, i)
		}
	}
	at := map[string]int{}
	var out []Unread
	for i, s := range io {
		for _, r := range s.Reads {
			other := false
			written.touching(r, func(k int) { other = other || k != i })
			if other {
				continue
			}
			n, ok := at[r]
			if !ok {
				n, at[r] = len(out), len(out)
				out = append(out, Unread{Path: r})
			}
			if rs := out[n].Readers; len(rs) == 0 || rs[len(rs)-1] != i {
				out[n].Readers = append(rs, i)
			}
		}
	}
	return out
}
