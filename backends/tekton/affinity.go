package tekton

import (
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/mlcube-compile/mlcube-compile/backends/internal/kube"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// Tekton's affinity assistant (feature flag coschedule: workspaces, the
// default) runs every TaskRun of a PipelineRun that mounts a claim on the
// node where the assistant runs, so that parallel steps can share a
// ReadWriteOnce claim; with pipelineruns or isolate-pipelinerun it runs
// every TaskRun of the run there. Each such TaskRun's pod gets a required
// pod affinity to the assistant's pod, and the assistant places itself
// with the PipelineRun's pod template alone (affinityAssistantStatefulSet
// in pkg/reconciler/pipelinerun/affinity_assistant.go): a GPU step whose
// toleration and node selector were its own would wait for ever for an
// assistant on a CPU node. So the run's template carries every node
// selector entry and toleration of the steps the assistant places, and
// those steps take them from it.

// Tekton's coschedule values (pkg/apis/config/feature_flags.go).
const (
	coscheduleWorkspaces = "workspaces"
	coscheduleDisabled   = "disabled"
)

// coschedule is the cluster's coschedule as the platform says it;
// Tekton's default when it says none.
func coschedule(p *ir.Pipeline) string { return settingsOf(p).Coschedule }

// coLocated are the container steps whose pods run on the assistant's
// node: with coschedule workspaces, those that mount a claim (a volume
// each pod has of its own is no workspace: objects.go); with
// pipelineruns or isolate-pipelinerun, every one; with disabled, none.
// The kubectl tasks of distributed steps have no scheduling of their own:
// they take the run's template wherever they run.
func coLocated(p *ir.Pipeline) []*ir.Step {
	var out []*ir.Step
	for _, s := range containerSteps(p) {
		switch coschedule(p) {
		case coscheduleDisabled:
		case coscheduleWorkspaces:
			if boundClaims(p, s) > 0 {
				out = append(out, s)
			}
		default:
			out = append(out, s)
		}
	}
	return out
}

// runScheduling returns the node selector entries and tolerations of the
// run's pod template: those of every step the assistant places, so that
// it lands where each of them can run; without an assistant, those every
// step has in common, safe for each step's pod.
func runScheduling(p *ir.Pipeline) (map[string]string, []corev1.Toleration) {
	placed := coLocated(p)
	if len(placed) == 0 {
		return commonScheduling(containerSteps(p))
	}
	sel := map[string]string{}
	var tols []ir.Toleration
	for _, s := range placed {
		for k, v := range s.NodeSelector {
			if _, ok := sel[k]; !ok {
				sel[k] = v
			}
		}
		for _, t := range s.Tolerations {
			if !slices.ContainsFunc(tols, func(o ir.Toleration) bool { return sameToleration(t, o) }) {
				tols = append(tols, t)
			}
		}
	}
	if len(sel) == 0 {
		sel = nil
	}
	return sel, kube.Tolerations(tols)
}

// refusals are the runs that would never finish on Tekton with the
// cluster's coschedule: steps the assistant places on one node that ask
// for nodes no one node is (the same label with two values), and a claim
// made ReadWriteOncePod, which the assistant's own pod mounts (its
// StatefulSet has the claim as a volume), so that no step's pod could.
func refusals(p *ir.Pipeline) diag.Diagnostics {
	var out diag.Diagnostics
	placed := coLocated(p)
	for i, a := range placed {
		for _, b := range placed[i+1:] {
			for _, k := range slices.Sorted(maps.Keys(a.NodeSelector)) {
				if v, ok := b.NodeSelector[k]; ok && v != a.NodeSelector[k] {
					out = append(out, diag.Errorf(diag.EngineCannotRun, p.Spec.Field("steps"),
						"steps %s (%s=%s) and %s (%s=%s) %s, and could never both run on Tekton's affinity assistant's "+
							"node (coschedule: %s)", a.Name, k, a.NodeSelector[k], b.Name, k, v, sharing(p), coschedule(p)).
						WithFix("give them one node selector, or, on a cluster whose Tekton feature-flags set coschedule: "+
							"disabled, say so in the platform (tekton: {coschedule: disabled}) with a ReadWriteMany claim"))
					return out
				}
			}
		}
	}
	for _, v := range p.Volumes {
		if v.Create != nil && coschedule(p) != coscheduleDisabled &&
			slices.Equal(v.Create.AccessModes, []string{"ReadWriteOncePod"}) {
			out = append(out, diag.Errorf(diag.BadAccessModes, p.Platform.Field("storage").Field("accessModes"),
				"ReadWriteOncePod: Tekton's affinity assistant (coschedule: %s) mounts the claim %s in its own pod, so no step "+
					"could", coschedule(p), v.Name).
				WithFix("use ReadWriteOnce, which the assistant keeps on its one node, or, on a cluster whose Tekton "+
					"feature-flags set coschedule: disabled, say so in the platform (tekton: {coschedule: disabled})").
				WithDetail("The affinity assistant runs a StatefulSet whose pod has the claim as a volume."))
		}
	}
	return out
}

// sharing says what puts steps on the assistant's node.
func sharing(p *ir.Pipeline) string {
	if coschedule(p) == coscheduleWorkspaces {
		return "share a claim"
	}
	return "are in one run"
}

// commonScheduling returns the node selector entries and tolerations that
// every step has: safe for every step's pod.
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
	out := append(append(append(limitWarnings(p), workspaceWarnings(p)...), entrypointWarnings(p)...), uriWarnings(p)...)
	if w, ok := gpuUnplaced(p); ok {
		out = append(out, w)
	}
	for _, s := range p.Steps {
		if n := boundClaims(p, s); n > 1 && coschedule(p) == coscheduleWorkspaces {
			out = append(out, diag.Warnf(diag.TektonClaims, s.Loc,
				"step %s mounts %d claims, and Tekton's affinity assistant (coschedule: workspaces) refuses more than one", s.Name,
				n).WithFix("set coschedule: pipelineruns or disabled in Tekton's feature-flags, and the platform's tekton: "+
				"{coschedule: ...} to match"))
		}
		if kube.RetriedOnPreemption(s) {
			out = append(out, diag.Warnf(diag.PreemptionRetried, s.Loc,
				"step %s in Kueue queue %s is retried %d times, and Tekton retries it whatever failed it", s.Name, s.Queue,
				kube.PreemptionRetries).
				WithFix("give the step retries: to choose (retries: {limit: 0} runs it once)").
				WithDetail("Kueue preempts a queued pod by deleting it, which fails a TaskRun that is not retried; Tekton "+
					"retries a TaskRun whatever failed it, so a program that fails runs again too."))
		}
		if s.Retry != nil && s.Retry.Backoff > 0 {
			out = append(out, diag.Warnf(diag.BackoffNotApplied, s.Loc.Field("retries").Field("backoff"),
				"step %s: Tekton retries at once; the %v backoff is not applied", s.Name, s.Retry.Backoff))
		}
	}
	var required []string
	for _, param := range p.Params {
		if param.Default == nil {
			required = append(required, param.Name)
		}
	}
	if len(required) > 0 && kind != KindPipeline {
		out = append(out, diag.Warnf(diag.TektonParamNoDefault, p.Spec.Field("params"),
			"%s; give %s in the PipelineRun's spec.params before creating it", noDefault(required), pronoun(required)))
	}
	for _, v := range p.Volumes {
		if v.Create != nil {
			out = append(out, diag.Warnf(diag.ClaimPerRunDeleted, p.Platform.Field("storage"),
				"the claim %s is created for each run and owned by the PipelineRun, so it and its results are deleted with the "+
					"run", v.Name).
				WithFix("to keep results, set storage.pvc to an existing claim, or copy them out in a last step").
				WithDetail("The PipelineRun is deleted by kubectl delete or Tekton's pruner, and the claim, with the results "+
					"written there, with it."))
		}
	}
	if p.TTLSecondsAfterFinished != nil {
		out = append(out, diag.Warnf(diag.TektonNoTTL, p.Platform.Field("ttlSecondsAfterFinished"),
			"a PipelineRun has no ttlSecondsAfterFinished; set up Tekton's pruner to delete finished runs"))
	}
	return out
}

// boundClaims counts the claims the TaskRun of s binds as workspaces,
// each of which the affinity assistant places: a container step's
// mounts of claims, and the claims Tekton creates that a distributed step's kubectl
// task binds to learn their names. The kubectl task has no node selector
// of its own: it takes the run's pod template, where the assistant is.
func boundClaims(p *ir.Pipeline, s *ir.Step) int {
	if s.Kind == ir.Container {
		claims := map[string]bool{}
		for _, m := range s.Mounts {
			if !perPod(p, m.Volume) {
				claims[m.Volume] = true
			}
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

// gpuUnplaced is the one warning about the GPU steps that Tekton's
// affinity assistant places and that have no node selector: at the first
// of them, naming each, with a note at each other; none when there are
// none.
func gpuUnplaced(p *ir.Pipeline) (diag.Diagnostic, bool) {
	var steps []*ir.Step
	for _, s := range coLocated(p) {
		if s.Resources.GPU > 0 && len(s.NodeSelector) == 0 {
			steps = append(steps, s)
		}
	}
	if len(steps) == 0 {
		return diag.Diagnostic{}, false
	}
	what := "step " + steps[0].Name +
		" asks for GPUs, with no node selector, and runs on Tekton's affinity assistant's node"
	if len(steps) > 1 {
		var names []string
		for _, s := range steps {
			names = append(names, s.Name)
		}
		what = "steps " + strings.Join(names, ", ") +
			" ask for GPUs, with no node selector, and run on Tekton's affinity assistant's node"
	}
	w := diag.Warnf(diag.TektonGPUUnplaced, steps[0].Loc, "%s", what).
		WithFix("set gpu.nodeSelector in the platform to your GPU nodes' labels (such as nvidia.com/gpu.present: "+
			"\"true\"), which the compiler gives the assistant").
		WithDetail("The affinity assistant (coschedule: %s) runs the steps on its node, which the run's pod template "+
			"alone chooses: nothing draws that node to one with GPUs (a toleration lets a pod onto GPU nodes, but does not "+
			"draw it there), so on a cluster with CPU nodes too the steps can wait for ever. NVIDIA's GPU feature discovery "+
			"sets nvidia.com/gpu.present.", coschedule(p))
	for _, s := range steps[1:] {
		w = w.WithRelated(s.Loc.Pos(), "step "+s.Name+" asks for GPUs too")
	}
	return w, true
}
