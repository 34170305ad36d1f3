package verify

import (
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// pipelineName refuses a pipeline name with nothing to make a Kubernetes
// name from, and warns where the name the spec writes is cut to fit.
func (v *verifier) pipelineName() {
	p := v.p
	if p.Name == "" {
		v.errorf(diag.NoNameChars, diag.At(diag.Pos{File: p.Source, Line: 1, Col: 1}).Field("name"),
			"%q has no letters or digits to make a Kubernetes name from", p.Written)
		return
	}
	if full := ir.DNSName(p.Written, len(p.Written)); full != p.Name && p.Spec.Field("name").Written() {
		v.warnf(diag.NameCut, p.Spec.Field("name"),
			"%q is cut to %q: names stay within %d characters so that every engine's suffixes fit", full, p.Name, ir.MaxNameLen)
	}
}

// stepNames refuses a step name with nothing to make an engine name
// from (lowering gave the step a stand-in).
func (v *verifier) stepNames() {
	for _, s := range v.p.Steps {
		if !hasNameChars(s.Written) {
			v.errorf(diag.NoNameChars, s.Loc, "step name %q has no letters or digits to make an engine name from", s.Written)
		}
		if v.p.Provenance != nil && s.Name == ir.ProvenanceTask {
			v.errorf(diag.CacheKeysCollide, s.Loc, "step %s has the name of the task that writes the run's provenance after "+
				"every step; rename it", s.Written)
		}
	}
}
