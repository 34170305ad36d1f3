package graph

import (
	"fmt"
	"slices"
	"testing"
)

// BenchmarkSharedPaths runs path flow, order and reduction on steps that
// share paths (sharedShapes), at 500 and 5,000 steps: the time per op
// grows tenfold between the two, as the steps do.
func BenchmarkSharedPaths(b *testing.B) {
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for name := range sharedShapes {
			if !yield(name) {
				return
			}
		}
	}) {
		for _, n := range []int{500, 5000} {
			io, names := sharedShapes[name](n), stepNames(n)
			b.Run(fmt.Sprintf("%s-%d", name, n), func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					edges := InferEdges(io)
					Reduce(TopoOrder(names, edges), edges)
				}
			})
		}
	}
}
