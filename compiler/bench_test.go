package compiler

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/mlcube-compile/mlcube-compile/compiler/source"
	"github.com/mlcube-compile/mlcube-compile/internal/specgen"
	"github.com/mlcube-compile/mlcube-compile/schema"
)

// The benchmarks of the front end's stages. Each runs on an example, or
// on generated pipelines of each shape; scripts/bench.sh runs them all.

// benchSizes are the pipeline sizes the stage benchmarks run.
var benchSizes = []int{100, 1000}

// benchSchema loads the shared schema; each benchmark holds its lock.
func benchSchema(b *testing.B) *schema.Schema {
	s, err := schema.Load()
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// writeBenchPipeline writes Cube and a generated pipeline to a folder.
func writeBenchPipeline(b *testing.B, shape specgen.Shape, n int) Options {
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
	return Options{MLCube: dir, Task: filepath.Join(dir, "pipeline.yaml")}
}

// forEachPipeline runs fn as a sub-benchmark for every shape and size.
func forEachPipeline(b *testing.B, fn func(b *testing.B, opts Options)) {
	for _, shape := range specgen.Shapes {
		for _, n := range benchSizes {
			b.Run(fmt.Sprintf("%s-%d", shape, n), func(b *testing.B) {
				fn(b, writeBenchPipeline(b, shape, n))
			})
		}
	}
}

// forEachReadPipeline runs fn for every shape and size on the specs read
// once, outside the clock.
func forEachReadPipeline(b *testing.B, fn func(b *testing.B, spec *pipelineSpec, plat *platformSpec)) {
	forEachPipeline(b, func(b *testing.B, opts Options) {
		s := benchSchema(b)
		s.Lock()
		spec, plat := readBenchSpecs(b, s, opts)
		s.Unlock()
		fn(b, spec, plat)
	})
}

// readBenchSpecs reads and checks the specs of opts once, as Compile does
// before lowering.
func readBenchSpecs(b *testing.B, s *schema.Schema, opts Options) (*pipelineSpec, *platformSpec) {
	spec, plat, diags := readSpecs(s, opts)
	if diags.HasErrors() || spec == nil {
		b.Fatalf("reading the specs: %v", diags)
	}
	return spec, plat
}

// BenchmarkLoadCube reads one cube, resolves its references, unifies it
// with the schema and decodes it.
func BenchmarkLoadCube(b *testing.B) {
	for _, example := range []string{"mnist", "resnet50-multinode", "single-gpu-task"} {
		b.Run(example, func(b *testing.B) {
			s := benchSchema(b)
			s.Lock()
			defer s.Unlock()
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				l := newLoader(s, source.New(nil))
				if c := l.cube(filepath.Join("..", "examples", example), source.Flag("--mlcube")); c == nil || l.diags.HasErrors() {
					b.Fatalf("loading the cube: %v", l.diags)
				}
			}
		})
	}
}

// BenchmarkReadPipeline reads a pipeline file and its cube: the YAML,
// the tree checks, one unification of each file with its schema, and the
// decoding of every step.
func BenchmarkReadPipeline(b *testing.B) {
	forEachPipeline(b, func(b *testing.B, opts Options) {
		s := benchSchema(b)
		s.Lock()
		defer s.Unlock()
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			readBenchSpecs(b, s, opts)
		}
	})
}

// BenchmarkChecks runs the semantic checks of the step graph on a read
// pipeline: path flow, cycles, topological order and the reduction of
// redundant edges.
func BenchmarkChecks(b *testing.B) {
	forEachReadPipeline(b, func(b *testing.B, spec *pipelineSpec, plat *platformSpec) {
		lw := newLowering(spec, plat, "")
		steps, io := lw.lowerSteps()
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			lw.p.Steps = nil
			for _, st := range steps {
				st.Dependencies = nil
			}
			lw.order(steps, io)
		}
		if lw.diags.HasErrors() {
			b.Fatal(lw.diags)
		}
	})
}

// BenchmarkLower lowers a read pipeline to the IR: every step's container,
// env, resources and scheduling, and the checks above.
func BenchmarkLower(b *testing.B) {
	forEachReadPipeline(b, func(b *testing.B, spec *pipelineSpec, plat *platformSpec) {
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if p, diags := lower(spec, plat, ""); p == nil {
				b.Fatal(diags)
			}
		}
	})
}
