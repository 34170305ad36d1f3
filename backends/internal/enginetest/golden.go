package enginetest

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/internal/golden"
)

// repoRoot is the repository, from an engine's package folder.
const repoRoot = "../.."

// Pipelines are every example's IR, by example name, read from the
// compiler's golden files.
func Pipelines(t *testing.T) map[string]*ir.Pipeline {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(repoRoot, "testdata", "golden", "ir", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no IR golden files: %v", err)
	}
	out := map[string]*ir.Pipeline{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var p ir.Pipeline
		if err := json.Unmarshal(raw, &p); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[strings.TrimSuffix(filepath.Base(f), ".json")] = &p
	}
	return out
}

// Golden emits every example's IR with e and the default options, and
// compares the YAML with testdata/golden/<example>.yaml in the engine's
// package, rewritten when update is set, and with the command's golden
// file for the same engine, byte for byte. An example e refuses (a
// SpecError: the job engine runs one task) has no golden file.
func Golden(t *testing.T, e emit.Engine, update bool) {
	for name, p := range Pipelines(t) {
		t.Run(name, func(t *testing.T) {
			file := filepath.Join("testdata", "golden", name+".yaml")
			command := filepath.Join(repoRoot, "testdata", "golden", e.Name(), name+".yaml")
			res, err := e.Emit(p, emit.Options{})
			var spec *emit.SpecError
			if errors.As(err, &spec) {
				for _, f := range []string{file, command} {
					if _, err := os.Stat(f); err == nil {
						t.Errorf("%s refuses %s (%v), but %s exists", e.Name(), name, spec, f)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, err := emit.Encode(res.Objects()...)
			if err != nil {
				t.Fatal(err)
			}
			golden.Compare(t, got, file, update)
			golden.Compare(t, got, command, false)
		})
	}
}
