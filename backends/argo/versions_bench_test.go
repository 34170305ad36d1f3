package argo_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlcube-compile/mlcube-compile/backends/argo"
	"github.com/mlcube-compile/mlcube-compile/backends/argo/argotest"
)

// BenchmarkValidatorVersions is each Argo version's validator alone on
// each golden Workflow, decoded once: v3.7's, which the compiler runs
// before it prints, against v4's, which runs in the tests. Compare
// v3.7/NAME with v4.0/NAME (benchstat, or the ns/op of each). Besides
// wall time it reports cpu-ns/op, the process's CPU time (garbage
// collection included), which a busy machine disturbs less.
func BenchmarkValidatorVersions(b *testing.B) {
	files, err := filepath.Glob("../../testdata/golden/argo/*.yaml")
	if err != nil || len(files) == 0 {
		b.Fatalf("no golden files: %v", err)
	}
	for _, v := range argotest.Versions {
		for _, f := range files {
			raw, err := os.ReadFile(f)
			if err != nil {
				b.Fatal(err)
			}
			docs, kinds, err := argotest.Documents(string(raw))
			if err != nil {
				b.Fatal(err)
			}
			obj, err := argotest.Decode(v, kinds[len(kinds)-1], docs[len(docs)-1])
			if err != nil {
				b.Fatal(err)
			}
			validate := func() error { return argo.WithValidator(func() error { return argotest.ValidateV3(obj) }) }
			if v == argotest.V4 {
				validate = func() error { return argotest.ValidateV4(obj) }
			}
			b.Run(string(v)+"/"+strings.TrimSuffix(filepath.Base(f), ".yaml"), func(b *testing.B) {
				b.ReportAllocs()
				start, ok := cpuTime()
				for i := 0; i < b.N; i++ {
					if err := validate(); err != nil {
						b.Fatal(err)
					}
				}
				if end, _ := cpuTime(); ok {
					b.ReportMetric(float64(end-start)/float64(b.N), "cpu-ns/op")
				}
			})
		}
	}
}
