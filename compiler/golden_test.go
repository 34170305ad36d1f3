package compiler

import (
	"encoding/json"
	"flag"
	"path/filepath"
	"testing"

	"github.com/mlcube-compile/mlcube-compile/internal/examples"
	"github.com/mlcube-compile/mlcube-compile/internal/golden"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// repoRoot is where examples/ and testdata/ live.
const repoRoot = ".."

// Every example compiles to the IR in testdata/golden/ir/<example>.json,
// the contract between the compiler and the engines: each engine's own
// golden files are made from these, not from specs.
func TestGoldenIR(t *testing.T) {
	t.Chdir(repoRoot)
	list, err := examples.List(".")
	if err != nil || len(list) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	for _, ex := range list {
		t.Run(ex.Name, func(t *testing.T) {
			p, diags := Compile(Options{MLCube: ex.MLCube, Task: ex.Task, Platform: ex.Platform, Values: ex.Values})
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			got, err := json.MarshalIndent(p, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			golden.Compare(t, got, filepath.Join("testdata", "golden", "ir", ex.Name+".json"), *update)
		})
	}
}
