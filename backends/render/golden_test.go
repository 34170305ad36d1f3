package render

import (
	"flag"
	"path/filepath"
	"testing"

	"github.com/mlcube-compile/mlcube-compile/internal/enginetest"
	"github.com/mlcube-compile/mlcube-compile/internal/golden"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// Every example's IR, from the compiler's golden files, draws what
// testdata/golden holds, in each format.
func TestGolden(t *testing.T) {
	ext := map[string]string{"mermaid": ".mmd", "dot": ".dot"}
	for name, p := range enginetest.Pipelines(t) {
		for _, format := range Formats {
			t.Run(name+"/"+format, func(t *testing.T) {
				got, err := Render(p, format)
				if err != nil {
					t.Fatal(err)
				}
				golden.Compare(t, []byte(got), filepath.Join("testdata", "golden", name+ext[format]), *update)
			})
		}
	}
}
