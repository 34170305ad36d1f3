package job

import (
	"flag"
	"testing"

	"github.com/mlcube-compile/mlcube-compile/internal/enginetest"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// Every example's IR, from the compiler's golden files, emits what
// testdata/golden/job/ at the repository's root holds: the one golden
// file of each example, which the command's output must match too.
func TestGolden(t *testing.T) { enginetest.Conformance(t, Engine{}, enginetest.Suite{Update: *update}) }
