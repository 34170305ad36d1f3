// Package graph is the step graph, integers in and integers out: path
// flow (which step waits for which, from the volume-qualified paths each
// reads and writes), dependency cycles, topological order with ties
// broken by name, and transitive reduction over bitsets. Steps are their
// indexes in declaration order; it knows nothing of specs or the IR.
package graph
