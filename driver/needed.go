package driver

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// neededNote says, once, what must be on the claims before the run
// starts: the paths it reads that no step writes, each with the steps
// that read it, grouped by claim in the order first read; and which of
// those steps the cache keys by what the claim holds on the engines
// that skip a step (a Job keys nothing, MLC644), which costs a read of
// it whole before the step and another after.
func neededNote(p *ir.Pipeline) diag.Diagnostics {
	if len(p.Needed) == 0 {
		return nil
	}
	keyedByClaim := map[string]bool{}
	for _, s := range p.Steps {
		if s.Key != nil && len(s.Key.Claims) > 0 {
			keyedByClaim[s.Written] = true
		}
	}
	var claims []string
	byClaim := map[string][]string{}
	keyed := map[string][]string{}
	for _, n := range p.Needed {
		if _, ok := byClaim[n.Claim]; !ok {
			claims = append(claims, n.Claim)
		}
		byClaim[n.Claim] = append(byClaim[n.Claim], fmt.Sprintf("%s (%s)", n.Path, strings.Join(n.Steps, ", ")))
		for _, step := range n.Steps {
			if keyedByClaim[step] && !slices.Contains(keyed[n.Claim], step) {
				keyed[n.Claim] = append(keyed[n.Claim], step)
			}
		}
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
		if steps := keyed[c]; len(steps) > 0 {
			parts = append(parts, fmt.Sprintf("on Argo and Tekton, the cache keys %s by what %s holds there: each key "+
				"task reads it whole before its step, and the step again before it keeps its outputs",
				strings.Join(steps, ", "), c))
		}
	}
	return diag.Diagnostics{diag.Notef(diag.InputsNeeded, p.Spec, "before the run starts, %s", strings.Join(parts, "; "))}
}
