package spectest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlcube-compile/mlcube-compile/diag"
	"github.com/mlcube-compile/mlcube-compile/internal/specgen"
)

// AddSeeds seeds a fuzz target with every file ending in ext of the
// examples, of the bad-input corpus and of ../shared/cubes; repo is the
// path from the test's folder to the repository's root.
func AddSeeds(f *testing.F, repo, ext string) {
	for _, root := range []string{"examples", "testdata/bad", "../shared/cubes"} {
		_ = filepath.WalkDir(filepath.Join(repo, root), func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ext) {
				return nil
			}
			if info, err := d.Info(); err != nil || info.Size() > 1<<16 {
				return nil
			}
			if src, err := os.ReadFile(path); err == nil {
				f.Add(src)
			}
			return nil
		})
	}
}

// SameTwice fails when two runs on one input said different things.
func SameTwice(t *testing.T, first, second any) {
	t.Helper()
	if a, b := fmt.Sprint(first), fmt.Sprint(second); a != b {
		t.Fatalf("the same input gave different results:\n%s\n---\n%s", a, b)
	}
}

// CheckDiagnostics fails on a diagnostic that does not say where or what.
// Only a problem with the file as a whole, named by via (the flag or key
// that named the file), has no line and column.
func CheckDiagnostics(t *testing.T, diags diag.Diagnostics, via string) {
	t.Helper()
	for _, d := range diags {
		if d.Pos.File == "" || d.Message == "" {
			t.Fatalf("diagnostic without a file or a message: %#v", d)
		}
		if (d.Pos.Line < 1 || d.Pos.Col < 1) && d.Field != via && d.Flag != via {
			t.Fatalf("diagnostic about %s without a line and column: %#v", d.Field, d)
		}
	}
}

// BenchSizes are the pipeline sizes the stage benchmarks run.
var BenchSizes = []int{100, 1000}

// ForEachPipeline runs fn as a sub-benchmark for every shape and size,
// on specgen's cube and a generated pipeline written to a folder.
func ForEachPipeline(b *testing.B, fn func(b *testing.B, cube, pipeline string)) {
	for _, shape := range specgen.Shapes {
		for _, n := range BenchSizes {
			b.Run(fmt.Sprintf("%s-%d", shape, n), func(b *testing.B) {
				text, err := specgen.Pipeline(shape, n, specgen.Options{})
				if err != nil {
					b.Fatal(err)
				}
				dir := b.TempDir()
				for name, body := range map[string]string{"mlcube.yaml": specgen.Cube, "pipeline.yaml": text} {
					if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
						b.Fatal(err)
					}
				}
				fn(b, dir, filepath.Join(dir, "pipeline.yaml"))
			})
		}
	}
}
