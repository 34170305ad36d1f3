package spec

import (
	"path/filepath"
	"testing"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/source"
	"github.com/mlcube-compile/mlcube-compile/compiler/internal/spectest"
	"github.com/mlcube-compile/mlcube-compile/schema"
)

// The benchmarks of the front end's stages. Each runs on an example, or
// on generated pipelines of each shape; scripts/bench.sh runs them all.

// readBench reads and checks the specs of a cube and pipeline once, as
// Compile does before lowering.
func readBench(b *testing.B, sc *schema.Context, cube, pipeline string) (*Pipeline, *Platform) {
	ps, plat, diags := Read(sc, source.New(nil), cube, "", pipeline)
	if diags.HasErrors() || ps == nil {
		b.Fatalf("reading the specs: %v", diags)
	}
	return ps, plat
}

// BenchmarkLoadCube reads one cube, resolves its references, unifies it
// with the schema and decodes it.
func BenchmarkLoadCube(b *testing.B) {
	for _, example := range []string{"mnist", "resnet50-multinode", "single-gpu-task"} {
		b.Run(example, func(b *testing.B) {
			b.ReportAllocs()
			testSchema(b).Do(func(sc *schema.Context) {
				for i := 0; i < b.N; i++ {
					l := newLoader(sc, source.New(nil))
					if c := l.cube(filepath.Join("..", "..", "..", "examples", example), source.Flag("--mlcube")); c == nil ||
						l.diags.HasErrors() {
						b.Fatalf("loading the cube: %v", l.diags)
					}
				}
			})
		})
	}
}

// BenchmarkReadPipeline reads a pipeline file and its cube: the YAML,
// the tree checks, one unification of each file with its schema, and the
// decoding of every step.
func BenchmarkReadPipeline(b *testing.B) {
	spectest.ForEachPipeline(b, func(b *testing.B, cube, pipeline string) {
		s := testSchema(b)
		b.ReportAllocs()
		b.ResetTimer()
		s.Do(func(sc *schema.Context) {
			for i := 0; i < b.N; i++ {
				readBench(b, sc, cube, pipeline)
			}
		})
	})
}
