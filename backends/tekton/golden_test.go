package tekton

import (
	"flag"
	"testing"

	"github.com/mlcube-compile/mlcube-compile/backends/internal/enginetest"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// Every example's IR, from the compiler's golden files, emits what
// testdata/golden holds, and the same bytes as the command's golden file.
func TestGolden(t *testing.T) { enginetest.Golden(t, Engine{}, *update) }

// Every example's IR, emitted as a Pipeline, is what
// testdata/golden/pipeline holds, and the command's
// testdata/golden/tekton-pipeline.
func TestGoldenPipeline(t *testing.T) { enginetest.GoldenKind(t, Engine{}, KindPipeline, *update) }
