package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/mlcube-compile/mlcube-compile/internal/specgen"
)

// TestRandomPipelinesPassValidators compiles random valid pipelines
// (specgen.Random) for every backend that takes them, and runs each
// output through the engine's own validator (Argo's, Tekton's, the Job
// checks, mpi-operator's for each MPIJob), twice, to the same bytes.
func TestRandomPipelinesPassValidators(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped with -short: a stress test, it compiles 150 random pipelines twice on every backend and runs each " +
			"engine's validator")
	}
	const pipelines = 150
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "mlcube.yaml"), []byte(specgen.Cube), 0o644)
	checked := map[string]int{}
	for seed := uint64(1); seed <= pipelines; seed++ {
		text, steps := specgen.Random(seed, 1+int(seed%13))
		for _, s := range steps {
			if s.MPI {
				checked["MPIJob steps"]++
			}
		}
		file := filepath.Join(dir, fmt.Sprintf("p%d.yaml", seed))
		os.WriteFile(file, []byte(text), 0o644)
		for _, backend := range backendNames {
			if backend == "job" && (len(steps) > 1 || steps[0].MPI) {
				continue
			}
			args := []string{"mlcube-compile", "--backend", backend, "--mlcube", dir, "--task", file}
			out, stderr, code := compileArgs(t, args...)
			if code != 0 {
				t.Fatalf("seed %d, %s: exit %d: %s\n%s", seed, backend, code, stderr, text)
			}
			validators[backend](t, fmt.Sprintf("seed %d %s", seed, backend), out)
			if again, _, _ := compileArgs(t, args...); again != out {
				t.Fatalf("seed %d, %s: two compiles differ", seed, backend)
			}
			checked[backend]++
		}
	}
	t.Logf("random pipelines through each engine's validator: %v", checked)
}
