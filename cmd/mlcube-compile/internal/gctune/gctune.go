package gctune

import (
	"os"
	"runtime/debug"
	"testing"
)

// Go's collector is tuned for servers that run for days. A compile lives
// for milliseconds and its garbage dies with it, so it collects a quarter
// as often, and holds the heap to a soft limit instead: a 5,000-step
// pipeline costs a third less CPU at the same peak memory. GOGC and
// GOMEMLIMIT, when set, win.
const (
	gcPercent   = 400
	memoryLimit = 192 << 20
)

// init tunes the collector halfway through the packages' init, before
// the Kubernetes and Argo packages that Argo's validator brings (Go
// initialises packages in the order of their import paths, each once its
// imports are, and theirs sort after this one's): about 2.9 of the
// 5.3 MB that init allocates come before it, so the collection Go starts
// near 4 MB usually does not run, and a resnet50 compile executes about
// a tenth fewer instructions (callgrind). main ran this after init. A
// test binary is left as Go sets it, so that tests and benchmarks run as
// they did (the floor of make bench, which they are compared with, runs
// with Go's defaults too).
func init() {
	if !testing.Testing() {
		tune()
	}
}

// tune sets GOGC and the memory limit unless the environment sets them.
func tune() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
}
