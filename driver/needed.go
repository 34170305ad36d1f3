package driver

import (
	"fmt"
	"strings"

	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// neededNote says, once, what must be on the claims before the run
// starts: the paths it reads that no step writes, each with the steps
// that read it, grouped by claim in the order first read.
func neededNote(p *ir.Pipeline) diag.Diagnostics {
	if len(p.Needed) == 0 {
		return nil
	}
	var claims []string
	byClaim := map[string][]string{}
	for _, n := range p.Needed {
		if _, ok := byClaim[n.Claim]; !ok {
			claims = append(claims, n.Claim)
		}
		byClaim[n.Claim] = append(byClaim[n.Claim], fmt.Sprintf("%s (%s)", n.Path, strings.Join(n.Steps, ", ")))
	}
	var parts []string
	for _, c := range claims {
		list := strings.Join(byClaim[c], ", ")
		if c == "" {
			parts = append(parts, "the workspace claim is created empty for each run, yet the run reads what "+
				"no step writes: "+list+"; name a claim that holds them with the platform's storage.pvc")
			continue
		}
		parts = append(parts, fmt.Sprintf("the claim %s must hold what the run reads and no step writes: %s", c, list))
	}
	return diag.Diagnostics{diag.Notef(diag.InputsNeeded, p.Spec, "before the run starts, %s", strings.Join(parts, "; "))}
}
