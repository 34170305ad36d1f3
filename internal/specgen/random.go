package specgen

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
)

// RandomStep is one step of a random pipeline: the folder it reads, the
// folder it writes (both relative to the workspace, ending in /), and the
// earlier steps it names in after:.
type RandomStep struct {
	Name        string
	Read, Write string
	After       []int
	// MPI is set for a step that runs as an MPIJob.
	MPI bool
}

// Random is a valid pipeline of n steps of Cube's task, the same for
// the same seed. Steps fall in layers: a step writes under its layer's
// folder, nested one or two deep, often where another step of its layer
// writes too, and reads a folder of an earlier layer, at any depth, so
// writers and readers overlap in every way path flow knows (the same
// folder, one inside the other) and the graph never has a cycle. Some
// steps also wait for earlier ones with after:, and some have retries, a
// timeout, GPUs, env, or run as an MPIJob. Two steps that write one
// folder that a step reads are chained with after: (chainWriters).
func Random(seed uint64, n int) (string, []RandomStep) {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	layers := 1 + rng.IntN(max(1, n/2))
	sub := []string{"", "a/", "b/", "a/x/", "a/y/", "b/x/"}
	steps := make([]RandomStep, n)
	extra := make([]string, n)
	for i := range steps {
		layer := min(layers-1, i*layers/n)
		s := &steps[i]
		s.Name = fmt.Sprintf("r%02d", i)
		s.Write = fmt.Sprintf("l%d/%s", layer, sub[1+rng.IntN(len(sub)-1)])
		s.Read = "input/"
		if layer > 0 {
			s.Read = fmt.Sprintf("l%d/%s", rng.IntN(layer), sub[rng.IntN(len(sub))])
		}
		if i > 0 && rng.IntN(4) == 0 {
			s.After = []int{rng.IntN(i)}
		}
		var b strings.Builder
		switch rng.IntN(6) {
		case 0:
			fmt.Fprintf(&b, "    retries: {limit: %d, backoff: %ds}\n", 1+rng.IntN(3), 1+rng.IntN(60))
		case 1:
			fmt.Fprintf(&b, "    timeout: %dm\n", 1+rng.IntN(600))
		case 2:
			fmt.Fprintf(&b, "    resources: {gpu: %d, cpu: \"%d\", memory: %dGi}\n", 1+rng.IntN(8),
				1+rng.IntN(16), 1+rng.IntN(64))
		case 3:
			fmt.Fprintf(&b, "    env: {SEED: \"%d\", STEP: %s}\n", seed, s.Name)
		case 4:
			s.MPI = true
			fmt.Fprintf(&b, "    resources: {gpu: %d}\n    mpi: {workers: %d, entrypoint: python work.py}\n",
				rng.IntN(3), 1+rng.IntN(4))
		}
		extra[i] = b.String()
	}
	chainWriters(steps)
	var b strings.Builder
	b.WriteString("name: random\nsteps:\n")
	for i, s := range steps {
		fmt.Fprintf(&b, "  %s:\n    task: stage\n    inputs: {src: %s}\n    outputs: {dst: %s}\n", s.Name, s.Read, s.Write)
		if len(s.After) > 0 {
			names := make([]string, len(s.After))
			for k, a := range s.After {
				names[k] = steps[a].Name
			}
			fmt.Fprintf(&b, "    after: [%s]\n", strings.Join(names, ", "))
		}
		b.WriteString(extra[i])
	}
	return b.String(), steps
}

// chainWriters makes a step that writes the folder an earlier step
// writes wait for it with after:, when a step reads what touches that
// folder: a pipeline where only the file orders two writers of what a
// step reads is refused (graph.MixedWriters).
func chainWriters(steps []RandomStep) {
	last := map[string]int{}
	for i := range steps {
		s := &steps[i]
		if prev, ok := last[s.Write]; ok && readAfter(steps, s.Write) && !slices.Contains(s.After, prev) {
			s.After = append(s.After, prev)
		}
		last[s.Write] = i
	}
}

// readAfter says whether some step reads a folder that touches dir.
func readAfter(steps []RandomStep, dir string) bool {
	for _, s := range steps {
		if strings.HasPrefix(s.Read, dir) || strings.HasPrefix(dir, s.Read) {
			return true
		}
	}
	return false
}
