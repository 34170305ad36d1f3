package graph

// FileOrderEdges returns the order of a cube's tasks run without a --task
// list, as MLCube's own runners would have them: each task waits for
// every task written before it in the file whose paths touch its own,
// reads included. MLCube's docker runner mounts every input writable
// (mlcube/shell.py generate_mounts_and_args gives each parameter a
// host:container mount, which mlcube_docker/docker_run.py run passes to
// docker run --volume with no :ro), so a task may change what it declares
// as an input, and a later task reading that path expects the change:
// path flow, which lets two
// readers of one path run at once and a reader wait for any writer, later
// ones included, would break such cubes. Only tasks whose paths touch
// none of each other's run at once. Edges point only backwards in the
// file, so there is never a cycle: a task writing the whole workspace
// (an output ./) runs after the tasks above it and before those below.
//
// readsWrite false is for containers that mount their inputs read-only
// (MedPerf's): two tasks that only read one path then run at once.
func FileOrderEdges(io []IO, readsWrite bool) []map[int]bool {
	edges := make([]map[int]bool, len(io))
	for j := range io {
		edges[j] = map[int]bool{}
		for i := 0; i < j; i++ {
			if conflict(io[i], io[j], readsWrite) {
				edges[j][i] = true
			}
		}
	}
	return edges
}

// conflict reports whether two tasks touch one path where either may
// change it: a write of one against anything of the other, or, when
// reads may write, a read against a read.
func conflict(a, b IO, readsWrite bool) bool {
	if touchAny(a.Writes, b.Reads, b.Writes) || touchAny(b.Writes, a.Reads) {
		return true
	}
	return readsWrite && touchAny(a.Reads, b.Reads)
}

// touchAny reports whether any path of as touches any path of the lists bs.
func touchAny(as []string, bs ...[]string) bool {
	for _, p := range as {
		for _, b := range bs {
			for _, q := range b {
				if Touch(p, q) {
					return true
				}
			}
		}
	}
	return false
}
