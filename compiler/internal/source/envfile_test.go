package source

import (
	"testing"

	"github.com/mlcube-compile/mlcube-compile/diag"
)

func TestEnvFile(t *testing.T) {
	vars, diags := parseEnvFile("mlops.env", []byte("# comment\n\nexport A=1\nB=\"two words\"\nC='x=y'\n9BAD=1\n"),
		diag.At(diag.Pos{}).Field("steps").Field("s").Field("envFile"))
	if len(vars) != 3 || vars[1].Value != "two words" || vars[2].Value != "x=y" {
		t.Fatalf("vars %+v", vars)
	}
	if got := diags.Error(); got != `mlops.env:6:1: steps.s.envFile: want KEY=VALUE, got "9BAD=1" [MLC155]` {
		t.Fatalf("diagnostics %q", got)
	}
}
