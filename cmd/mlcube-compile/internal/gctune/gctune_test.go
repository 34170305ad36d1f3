package gctune

import (
	"runtime/debug"
	"testing"
)

// TestTune: without GOGC and GOMEMLIMIT in the environment, Tune sets
// the collector's percent and soft limit; with them, it leaves both.
func TestTune(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	tune()
	if got, limit := debug.SetGCPercent(100), debug.SetMemoryLimit(-1); got != gcPercent || limit != memoryLimit {
		t.Errorf("GOGC %d, limit %d; want %d, %d", got, limit, gcPercent, memoryLimit)
	}
	debug.SetMemoryLimit(1 << 40)
	t.Setenv("GOGC", "50")
	t.Setenv("GOMEMLIMIT", "1TiB")
	tune()
	if got, limit := debug.SetGCPercent(100), debug.SetMemoryLimit(-1); got != 100 || limit != 1<<40 {
		t.Errorf("with the environment set: GOGC %d, limit %d; want them left", got, limit)
	}
}
