package lower

import (
	"testing"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/source"
	"github.com/mlcube-compile/mlcube-compile/compiler/internal/spec"
	"github.com/mlcube-compile/mlcube-compile/compiler/internal/spectest"
	"github.com/mlcube-compile/mlcube-compile/diag"
	"github.com/mlcube-compile/mlcube-compile/schema"
)

// The benchmarks of lowering, on generated pipelines of each shape read
// once, outside the clock; scripts/bench.sh runs them all.

// forEachReadPipeline runs fn for every shape and size on the specs read
// once, outside the clock.
func forEachReadPipeline(b *testing.B, fn func(b *testing.B, ps *spec.Pipeline, plat *spec.Platform)) {
	spectest.ForEachPipeline(b, func(b *testing.B, cube, pipeline string) {
		s, err := schema.Load()
		if err != nil {
			b.Fatal(err)
		}
		var ps *spec.Pipeline
		var plat *spec.Platform
		var diags diag.Diagnostics
		s.Do(func(sc *schema.Context) { ps, plat, diags = spec.Read(sc, source.New(nil), cube, "", pipeline) })
		if diags.HasErrors() || ps == nil {
			b.Fatalf("reading the specs: %v", diags)
		}
		fn(b, ps, plat)
	})
}

// BenchmarkChecks runs the semantic checks of the step graph on a read
// pipeline: path flow, cycles, topological order and the reduction of
// redundant edges.
func BenchmarkChecks(b *testing.B) {
	forEachReadPipeline(b, func(b *testing.B, ps *spec.Pipeline, plat *spec.Platform) {
		lw := newLowering(ps, plat)
		steps, io := lw.lowerSteps()
		fl := &flow{specs: ps.Steps, steps: steps, io: io, data: lw.data}
		var diags diag.Diagnostics
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			for _, st := range steps {
				st.Dependencies = nil
			}
			_, diags = fl.order(ps.Tasks)
		}
		if diags = append(lw.diags, diags...); diags.HasErrors() {
			b.Fatal(diags)
		}
	})
}

// BenchmarkLower lowers a read pipeline to the IR: every step's container,
// env, resources and scheduling, and the checks above.
func BenchmarkLower(b *testing.B) {
	forEachReadPipeline(b, func(b *testing.B, ps *spec.Pipeline, plat *spec.Platform) {
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if p, diags := Lower(ps, plat, ""); p == nil {
				b.Fatal(diags)
			}
		}
	})
}
