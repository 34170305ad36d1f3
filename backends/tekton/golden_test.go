package tekton

import (
	"flag"
	"testing"

	"github.com/mlcube-compile/mlcube-compile/internal/enginetest"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// Every example's IR, from the compiler's golden files, emits what
// testdata/golden/tekton/ at the repository's root holds: the one golden
// file of each example, which the command's output must match too.
func TestGolden(t *testing.T) { enginetest.Conformance(t, Engine{}, enginetest.Suite{Update: *update}) }

// Every example's IR, emitted as a Pipeline, is what the repository's
// testdata/golden/tekton-pipeline/ holds.
func TestGoldenPipeline(t *testing.T) { enginetest.GoldenKind(t, Engine{}, KindPipeline, *update) }
