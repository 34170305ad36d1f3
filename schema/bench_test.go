package schema

import "testing"

// BenchmarkCompile compiles the embedded schemas into a CUE value, as
// every run of mlcube-compile does once, and each lint worker.
func BenchmarkCompile(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := New(); err != nil {
			b.Fatal(err)
		}
	}
}
