package verify

import (
	"strings"

	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// Verify checks the lowered pipeline p: names, after: targets, cycles,
// claim access modes and the hostnames of distributed jobs.
func Verify(p *ir.Pipeline) diag.Diagnostics {
	v := &verifier{p: p}
	v.pipelineName()
	v.stepNames()
	v.after()
	// The steps of a cycle are in no order, so which of them may run at
	// once is unknown: the claims are checked as if no step mounted them.
	cyclic := v.cycle()
	v.claims(cyclic)
	v.hostnames()
	return v.diags
}

// verifier holds the pipeline checked and what its checks found.
type verifier struct {
	p     *ir.Pipeline
	diags diag.Diagnostics
}

func (v *verifier) errorf(code diag.Code, at diag.Loc, format string, args ...any) {
	v.diags = append(v.diags, diag.Errorf(code, at, format, args...))
}

func (v *verifier) warnf(code diag.Code, at diag.Loc, format string, args ...any) {
	v.diags = append(v.diags, diag.Warnf(code, at, format, args...))
}

// hasNameChars says whether name has a letter or digit to make an
// engine name from.
func hasNameChars(name string) bool {
	return strings.ContainsFunc(strings.ToLower(name), func(r rune) bool {
		return r >= 'a' && r <= 'z' || r >= '0' && r <= '9'
	})
}
