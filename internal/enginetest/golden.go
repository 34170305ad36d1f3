package enginetest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/internal/golden"
)

// Pipelines are every example's IR, by example name, read from the
// compiler's golden files.
func Pipelines(t *testing.T) map[string]*ir.Pipeline {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(Root(t), "testdata", "golden", "ir", "*.json"))
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
// compares the YAML with the one golden file of that example for e,
// testdata/golden/<engine>/<example>.yaml at the repository's root (which
// the command's golden test compares its output with too), rewritten
// when update is set. An example e does not accept (a pipeline of a shape
// it does not run: the job engine runs one task) has no golden file.
func Golden(t *testing.T, e emit.Engine, update bool) {
	compareAll(t, e, emit.Options{}, filepath.Join(Root(t), "testdata", "golden", e.Name()), update)
}

// GoldenKind is Golden for one of e's other kinds, whose golden files are
// in testdata/golden/<engine>-<kind>.
func GoldenKind(t *testing.T, e emit.Engine, kind string, update bool) {
	compareAll(t, e, emit.Options{Kind: kind}, filepath.Join(Root(t), "testdata", "golden", e.Name()+"-"+kind), update)
}

// compareAll emits every example's IR with e and opts and compares the
// YAML with <dir>/<example>.yaml.
func compareAll(t *testing.T, e emit.Engine, opts emit.Options, dir string, update bool) {
	for name, p := range Pipelines(t) {
		t.Run(name, func(t *testing.T) {
			file := filepath.Join(dir, name+".yaml")
			res, err := e.Emit(p, opts)
			if err != nil {
				t.Fatal(err)
			}
			if shape := e.Accepts(p, opts.Kind); len(shape) > 0 {
				if _, err := os.Stat(file); err == nil {
					t.Errorf("%s refuses %s (%v), but %s exists", e.Name(), name, shape, file)
				}
				if len(res.Refused) == 0 {
					t.Errorf("%s does not accept %s (%v), yet emits it", e.Name(), name, shape)
				}
				return
			}
			if len(res.Refused) > 0 {
				t.Fatalf("%s refuses %s: %v", e.Name(), name, res.Refused)
			}
			got, err := emit.Encode(res.Objects()...)
			if err != nil {
				t.Fatal(err)
			}
			golden.Compare(t, got, file, update)
		})
	}
}
