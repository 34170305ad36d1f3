package graph

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// sharedShapes are steps that share paths, each as n steps' IO: the
// shapes whose every pair path flow orders is the square of the steps.
var sharedShapes = map[string]func(n int) []IO{
	// A sweep of one task with default paths: all read in/, write out/.
	"chain": func(n int) []IO {
		return repeat(n, func(int) IO { return IO{Reads: []string{"w:/in"}, Writes: []string{"w:/out"}} })
	},
	// Writers of one path, then one reader.
	"writers": func(n int) []IO {
		return repeat(n, func(i int) IO {
			if i == n-1 {
				return IO{Reads: []string{"w:/out"}, Writes: []string{"w:/result"}}
			}
			return IO{Reads: []string{fmt.Sprintf("w:/in/w%d", i)}, Writes: []string{"w:/out"}}
		})
	},
	// One step in ten writes shared/, the others read it.
	"readers": func(n int) []IO {
		return repeat(n, func(i int) IO {
			if i%10 == 0 {
				return IO{Reads: []string{"w:/in"}, Writes: []string{"w:/shared"}}
			}
			return IO{Reads: []string{"w:/shared"}, Writes: []string{fmt.Sprintf("w:/r/%d", i)}}
		})
	},
	// Each step reads and rewrites one folder.
	"read-modify-write": func(n int) []IO {
		return repeat(n, func(int) IO { return IO{Reads: []string{"w:/data"}, Writes: []string{"w:/data"}} })
	},
	// One step in ten writes data/, the others read data/x/ and write
	// inside data/y/: every writer of data/ writes what they write.
	"inside": func(n int) []IO {
		return repeat(n, func(i int) IO {
			if i%10 == 0 {
				return IO{Reads: []string{"w:/in"}, Writes: []string{"w:/data"}}
			}
			return IO{Reads: []string{"w:/data/x"}, Writes: []string{fmt.Sprintf("w:/data/y/%d", i)}}
		})
	},
	// Files written beside each other, their folder written over them
	// every ten steps, and read in between.
	"folder over files": func(n int) []IO {
		return repeat(n, func(i int) IO {
			switch {
			case i%10 == 0:
				return IO{Writes: []string{"w:/a"}}
			case i%2 == 0:
				return IO{Writes: []string{fmt.Sprintf("w:/a/%d", i)}}
			}
			return IO{Reads: []string{"w:/a"}, Writes: []string{"w:/log"}}
		})
	},
}

func repeat(n int, step func(i int) IO) []IO {
	io := make([]IO, n)
	for i := range io {
		io[i] = step(i)
	}
	return io
}

// TestSharedPathsLinear counts the edges InferEdges returns for steps
// that share paths: every pair path flow orders is the square of the
// steps, and each step needs only a few of them.
func TestSharedPathsLinear(t *testing.T) {
	const n = 2000
	for name, shape := range sharedShapes {
		edges := 0
		for _, deps := range InferEdges(shape(n)) {
			edges += len(deps)
		}
		if edges > 8*n {
			t.Errorf("%s: %d edges for %d steps, want at most %d", name, edges, n, 8*n)
		}
	}
}

// TestSharedPathsAgainstPairs checks InferEdges on the shapes above, and
// on random steps that read and write several deep, overlapping paths,
// against every pair path flow orders.
func TestSharedPathsAgainstPairs(t *testing.T) {
	for _, shape := range sharedShapes {
		for _, n := range []int{1, 2, 11, 150} {
			io := shape(n)
			checkInferred(t, io, stepNames(n), pairEdges(io))
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	paths := []string{"w:/", "w:/a", "w:/a/b", "w:/a/b/c", "w:/a/b/d", "w:/a/e", "w:/a/e/f", "w:/g", "w:/g/h", "v:/a"}
	pick := func(max int) []string {
		var out []string
		for k := rng.IntN(max + 1); k > 0; k-- {
			out = append(out, paths[rng.IntN(len(paths))])
		}
		return out
	}
	for round := 0; round < 2000; round++ {
		n := 1 + rng.IntN(40)
		io := make([]IO, n)
		for i := range io {
			io[i] = IO{Reads: pick(2), Writes: pick(3)}
		}
		checkInferred(t, io, stepNames(n), pairEdges(io))
	}
}

func stepNames(n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("s%05d", i)
	}
	return names
}
