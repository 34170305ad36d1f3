package specgen

import (
	"fmt"
	"strings"
)

// Cube is the cube every generated pipeline runs: one task, stage, that
// reads a folder and writes one.
const Cube = `name: chain
docker: {image: example/chain:1}
tasks:
  stage:
    parameters:
      inputs: {src: in/}
      outputs: {dst: out/}
`

// Shape is how the steps of a generated pipeline depend on each other.
type Shape string

// The shapes, each wired by path flow alone.
const (
	// Chain: each step reads what the step before it wrote.
	Chain Shape = "chain"
	// Fan: one step writes, every other step but the last reads it at
	// once, and the last reads all that they wrote.
	Fan Shape = "fan"
	// Diamond: diamonds in a row; two steps read what one wrote, and one
	// step reads what both wrote and starts the next diamond.
	Diamond Shape = "diamond"
	// SharedChain: every step runs the task with its default paths, so
	// all read in/ and write out/, as a sweep of one task does: writers
	// of one path run in declaration order, a chain.
	SharedChain Shape = "shared-chain"
	// SharedWriters: every step but the last reads a folder of its own
	// and writes out/, which the last step reads: writers of one path,
	// each naming the one before in after: (the compiler refuses writers
	// of what a step reads that only the file orders), into one reader.
	SharedWriters Shape = "shared-writers"
	// SharedReaders: one step in ten writes shared/, after the writer
	// before it, and every other step reads it and writes a folder of its
	// own: a fan of readers of one path, each of which waits for every
	// writer, declared before it or after it.
	SharedReaders Shape = "shared-readers"
)

// Shapes lists every shape.
var Shapes = []Shape{Chain, Fan, Diamond, SharedChain, SharedWriters, SharedReaders}

// Options vary the steps of a generated pipeline.
type Options struct {
	// Env, when set, is a value each step's env gets, after the step's
	// number, so that no two steps share a template.
	Env string
}

// Pipeline is a pipeline file of n steps of Cube's task in the given
// shape. Steps are named s00000, s00001, … in the order they are written.
func Pipeline(shape Shape, n int, opts Options) (string, error) {
	paths, err := stepPaths(shape, n)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.Grow(n * 80)
	b.WriteString("steps:\n")
	for i, p := range paths {
		fmt.Fprintf(&b, "  s%05d: {task: stage", i)
		if p.src != "" {
			fmt.Fprintf(&b, ", inputs: {src: %s}", p.src)
		}
		if p.dst != "" {
			fmt.Fprintf(&b, ", outputs: {dst: %s}", p.dst)
		}
		if p.after > 0 {
			fmt.Fprintf(&b, ", after: [s%05d]", p.after-1)
		}
		if opts.Env != "" {
			fmt.Fprintf(&b, ", env: {NOTE: %d-%s}", i, opts.Env)
		}
		b.WriteString("}\n")
	}
	return b.String(), nil
}

// stepIO is the folder one step reads and the folder it writes; "" is
// the task's default (in/, out/), left out of the step. after, when not
// 0, is one more than the step it names in after:.
type stepIO struct {
	src, dst string
	after    int
}

// stepPaths gives each of n steps its folders, which wire the shape.
func stepPaths(shape Shape, n int) ([]stepIO, error) {
	out := make([]stepIO, 0, n)
	switch shape {
	case Chain:
		for i := 0; i < n; i++ {
			out = append(out, stepIO{fmt.Sprintf("d%d/", i), fmt.Sprintf("d%d/", i+1), 0})
		}
	case Fan:
		// The leaves write beside each other under leaves/, which the
		// last step reads as a whole.
		for i := 0; i < n; i++ {
			switch {
			case i == 0:
				out = append(out, stepIO{"in/", "root/", 0})
			case i == n-1 && n > 2:
				out = append(out, stepIO{"leaves/", "out/", 0})
			default:
				out = append(out, stepIO{"root/", fmt.Sprintf("leaves/l%d/", i), 0})
			}
		}
	case Diamond:
		// Step 0 writes t0/; then, for each diamond k, a left and a right
		// step read tk/ and write inside jk/, which the bottom step reads
		// to write t(k+1)/.
		out = append(out, stepIO{"in/", "t0/", 0})
		for k := 0; len(out) < n; k++ {
			out = append(out,
				stepIO{fmt.Sprintf("t%d/", k), fmt.Sprintf("j%d/l/", k), 0},
				stepIO{fmt.Sprintf("t%d/", k), fmt.Sprintf("j%d/r/", k), 0},
				stepIO{fmt.Sprintf("j%d/", k), fmt.Sprintf("t%d/", k+1), 0})
		}
	case SharedChain, SharedWriters, SharedReaders:
		out = sharedPaths(shape, n)
	default:
		return nil, fmt.Errorf("unknown shape %q (shapes: %s)", shape, shapeNames())
	}
	if n < len(out) {
		out = out[:n]
	}
	return out, nil
}

// sharedPaths gives each of n steps its folders in a shape whose steps
// share paths.
func sharedPaths(shape Shape, n int) []stepIO {
	out := make([]stepIO, n)
	for i := range out {
		switch {
		case shape == SharedWriters && i == n-1 && n > 1:
			out[i] = stepIO{"out/", "result/", 0}
		case shape == SharedWriters:
			out[i] = stepIO{fmt.Sprintf("in/w%d/", i), "", i}
		case shape == SharedReaders && i%10 == 0:
			out[i] = stepIO{"", "shared/", max(0, i-9)}
		case shape == SharedReaders:
			out[i] = stepIO{"shared/", fmt.Sprintf("r/%d/", i), 0}
		}
	}
	return out
}

// shapeNames lists the shapes' names for a message.
func shapeNames() string {
	names := make([]string, len(Shapes))
	for i, s := range Shapes {
		names[i] = string(s)
	}
	return strings.Join(names, ", ")
}
