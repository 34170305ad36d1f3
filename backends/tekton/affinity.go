package tekton

import (
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/mlcube-compile/mlcube-compile/backends/internal/kube"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// Tekton's affinity assistant (feature flag coschedule: workspaces, the
// default) runs every TaskRun of a PipelineRun that mounts a claim on the
// node where the assistant runs, so that parallel steps can share a
// ReadWriteOnce claim. The assistant places itself with the PipelineRun's
// pod template; commonScheduling gives that template what every step
// needs, and warnings say when no single node can serve them all.

// commonScheduling returns the node selector entries and tolerations that
// every step has: safe for the assistant and for every step's pod.
func commonScheduling(steps []*ir.Step) (map[string]string, []corev1.Toleration) {
	if len(steps) == 0 {
		return nil, nil
	}
	sel := map[string]string{}
	for k, v := range steps[0].NodeSelector {
		sel[k] = v
	}
	tols := append([]ir.Toleration(nil), steps[0].Tolerations...)
	for _, s := range steps[1:] {
		for k, v := range sel {
			if s.NodeSelector[k] != v {
				delete(sel, k)
			}
		}
		tols = keepShared(tols, s.Tolerations)
	}
	if len(sel) == 0 {
		sel = nil
	}
	return sel, kube.Tolerations(tols)
}

func keepShared(tols, other []ir.Toleration) []ir.Toleration {
	var out []ir.Toleration
	for _, t := range tols {
		for _, o := range other {
			if sameToleration(t, o) {
				out = append(out, t)
				break
			}
		}
	}
	return out
}

func sameToleration(a, b ir.Toleration) bool {
	return a.Key == b.Key && a.Operator == b.Operator && a.Value == b.Value && a.Effect == b.Effect
}

// warnings explain what a run of kind cannot do as the spec says, each at
// what it is about. A Pipeline's required params are given at start, as
// its start settings say.
func warnings(p *ir.Pipeline, kind string) diag.Diagnostics {
	var out diag.Diagnostics
	bySelector := map[string][]string{}
	for _, s := range p.Steps {
		if len(s.Mounts) > 0 && s.Kind == ir.Container {
			key := selectorText(s.NodeSelector)
			bySelector[key] = append(bySelector[key], s.Name)
		}
		if n := boundClaims(p, s); n > 1 {
			out = append(out, diag.Warnf(s.Loc, "tekton: step %s mounts %d claims; Tekton's affinity assistant refuses a TaskRun with more than one, so the cluster needs coschedule: pipelineruns or disabled in Tekton's feature-flags", s.Name, n))
		}
		if s.Retry != nil && s.Retry.Backoff > 0 {
			out = append(out, diag.Warnf(s.Loc.Field("retries").Field("backoff"), "tekton: step %s: Tekton retries at once; the %v backoff is not applied", s.Name, s.Retry.Backoff))
		}
	}
	if len(bySelector) > 1 {
		var groups []string
		for sel, names := range bySelector {
			groups = append(groups, strings.Join(names, ", ")+" on "+sel)
		}
		sort.Strings(groups)
		out = append(out, diag.Warnf(p.Spec.Field("steps"), "tekton: steps that share a claim ask for different nodes (%s); Tekton's affinity assistant puts them on one node, so use a ReadWriteMany claim with coschedule: disabled in Tekton's feature-flags, or give them one node selector", strings.Join(groups, "; ")))
	}
	var required []string
	for _, param := range p.Params {
		if param.Default == nil {
			required = append(required, param.Name)
		}
	}
	if len(required) > 0 && kind != KindPipeline {
		out = append(out, diag.Warnf(p.Spec.Field("params"), "tekton: %s; give %s in the PipelineRun's spec.params before creating it", noDefault(required), pronoun(required)))
	}
	for _, v := range p.Volumes {
		if v.Create != nil {
			out = append(out, diag.Warnf(p.Platform.Field("storage"), "tekton: the claim %s is created for each run and owned by the PipelineRun, so it and the results written there are deleted with the run (by kubectl delete or Tekton's pruner); to keep results, set storage.pvc to an existing claim, or copy them out in a last step", v.Name))
		}
	}
	if p.TTLSecondsAfterFinished != nil {
		out = append(out, diag.Warnf(p.Platform.Field("ttlSecondsAfterFinished"), "tekton: a PipelineRun has no ttlSecondsAfterFinished; set up Tekton's pruner to delete finished runs"))
	}
	return out
}

// boundClaims counts the claims the TaskRun of s binds as workspaces,
// each of which the affinity assistant places: a container step's
// mounts, and the claims Tekton creates that a distributed step's kubectl
// task binds to learn their names. The kubectl task has no node selector
// of its own: it takes the run's pod template, where the assistant is.
func boundClaims(p *ir.Pipeline, s *ir.Step) int {
	if s.Kind == ir.Container {
		claims := map[string]bool{}
		for _, m := range s.Mounts {
			claims[m.Volume] = true
		}
		return len(claims)
	}
	n := 0
	for _, m := range s.Mounts {
		for _, v := range p.Volumes {
			if v.Name == m.Volume && v.Create != nil {
				n++
			}
		}
	}
	return n
}

// selectorText prints a node selector in a fixed order.
func selectorText(sel map[string]string) string {
	if len(sel) == 0 {
		return "any node"
	}
	var parts []string
	for k, v := range sel {
		parts = append(parts, k+"="+v)
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

// noDefault says which params have no default: "param lr has no
// default", "params a, b have no default".
func noDefault(names []string) string {
	if len(names) == 1 {
		return "param " + names[0] + " has no default"
	}
	return "params " + strings.Join(names, ", ") + " have no default"
}

// pronoun is "it a value" for one param, "them values" for more.
func pronoun(names []string) string {
	if len(names) == 1 {
		return "it a value"
	}
	return "them values"
}
