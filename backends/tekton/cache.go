package tekton

import (
	"slices"
	"strings"

	v1 "github.com/tektoncd/pipeline/pkg/apis/pipeline/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/selection"

	"github.com/mlcube-compile/mlcube-compile/backends/internal/kube"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// A cached step (ir.Step.Key) comes after a task of its own, its key
// task (kube.KeyScript), and runs only when the key task's hit result
// is "false": Tekton skips a task whose when expressions are false,
// without skipping the tasks that run after it (they do not consume its
// results: a step after a cached one fetches from the cache's entry,
// reading the key from the key task, which always runs).

const (
	// keyResult and hitResult name the key task's results.
	keyResult = "key"
	hitResult = "hit"
)

// resultsDir is where a task's results are written: Tekton's
// $(results.NAME.path) is resultsDir/NAME (DefaultResultPath,
// pkg/apis/pipeline/paths.go, v1.15.1).
const resultsDir = "/tekton/results"

// keyOutRef refers to the answer name of the key task of step s.
func keyOutRef(s *ir.Step) func(name string) string {
	if s.Key == nil {
		return nil
	}
	return func(name string) string { return "$(tasks." + s.Name + ir.KeyTaskSuffix + ".results." + name + ")" }
}

// keyRef refers to the key of the cached step named step.
func keyRef(step string) string {
	return "$(tasks." + step + ir.KeyTaskSuffix + ".results." + keyResult + ")"
}

// keyTask makes the key of step s and looks it up, after the steps s
// waits for; its pod asks for none of the step's GPUs and mounts none
// of its volumes but the claims it reads, bound read-only as the step
// binds them (so Tekton's affinity assistant places it as it places the
// step).
func keyTask(p *ir.Pipeline, s *ir.Step) (v1.PipelineTask, error) {
	if err := keyResultsFit(p, s); err != nil {
		return v1.PipelineTask{}, err
	}
	m := kube.Mover{RunID: runID, Ref: paramRef, Want: wantRef, Key: keyRef}
	c := m.KeyContainer(p, s, "key", resultsDir)
	spec := v1.TaskSpec{
		Steps: []v1.Step{fromContainer(c)},
		Results: []v1.TaskResult{
			{Name: keyResult, Type: v1.ResultsTypeString, Description: "the step's cache key (" + ir.KeyText + ")"},
			{Name: hitResult, Type: v1.ResultsTypeString, Description: "true when the key is in the cache, else false"},
		},
	}
	for _, name := range kube.KeyOutputs(p, s) {
		what := "what the step's fetch reads, as its key holds it"
		if strings.HasPrefix(name, ir.ClaimAnswerPrefix) {
			what = "the sha256 of what the claim holds where the step reads it, which the step finds unchanged before it " +
				"keeps its outputs"
		}
		spec.Results = append(spec.Results, v1.TaskResult{Name: name, Type: v1.ResultsTypeString, Description: what})
	}
	if slices.ContainsFunc(c.VolumeMounts, func(vm corev1.VolumeMount) bool { return vm.Name == kube.ScratchVolume }) {
		spec.Volumes = append(spec.Volumes, kube.ScratchVolumeSpec(p))
	}
	t := v1.PipelineTask{
		Name:     s.Name + ir.KeyTaskSuffix,
		RunAfter: s.Dependencies,
		TaskSpec: &v1.EmbeddedTask{
			Metadata: v1.PipelineTaskMetadata{Labels: kube.Labels(p.Labels, s.Labels)},
			TaskSpec: spec,
		},
	}
	for _, name := range s.Key.Params {
		t.Params = append(t.Params, v1.Param{Name: name, Value: *v1.NewStructuredValues(paramRef(name))})
		t.TaskSpec.Params = append(t.TaskSpec.Params, v1.ParamSpec{Name: name, Type: v1.ParamTypeString})
	}
	bindClaims(&t, s.Key.Claims, true)
	return t, nil
}

// keyResultsFit refuses step s when its key task's results, written to
// its one step's termination message, do not fit what the kubelet keeps
// of it (resultsFit): the key, the answer, and a sha256 and an entry for
// each output of a cached step s reads.
func keyResultsFit(p *ir.Pipeline, s *ir.Step) error {
	size := func(name string, value int) int { return len(`{"key":"","value":"","type":1},`) + len(name) + value }
	total := size(keyResult, 64) + size(hitResult, len("false"))
	for _, name := range kube.KeyOutputs(p, s) {
		if step, ok := strings.CutSuffix(name, "-entry"); ok {
			total += size(name, len(kube.EntryOf(strings.Repeat("0", uidLength), step, "100")))
		} else {
			total += size(name, 64)
		}
	}
	// The key task's pod: Tekton's prepare init container, and its step.
	if budget := min(messageLimit, podMessageLimit/2) - tektonShare; total > budget {
		return diag.Diagnostics{diag.Errorf(diag.ResultsTooLarge, s.Loc,
			"step %s reads %d inputs whose digests its key task hands it, in results of %d bytes, more than the %d "+
				"the kubelet keeps", s.Name, len(kube.KeyOutputs(p, s)), total, budget).
			WithFix("pin its URL inputs with #sha256=, read fewer parts of the claim, set cache: false on the step, or use " +
				"--backend argo")}
	}
	return nil
}

// skipOnHit makes t, the task of cached step s, run after s's key task,
// and only when its key is not in the cache.
func skipOnHit(t *v1.PipelineTask, s *ir.Step) {
	key := s.Name + ir.KeyTaskSuffix
	t.RunAfter = append(t.RunAfter, key)
	t.When = append(t.When, v1.WhenExpression{Input: "$(tasks." + key + ".results." + hitResult + ")",
		Operator: selection.In, Values: []string{"false"}})
}

// provenanceTask writes the run's provenance (kube.ProvenanceScript) once
// every step that makes a result has ended, or was skipped: each one's
// sha256 is its task's result, or its key's manifest's when it is cached
// (a result of a task skipped would fail the run).
func provenanceTask(p *ir.Pipeline) v1.PipelineTask {
	m := kube.Mover{RunID: runID, Ref: paramRef, Want: wantRef, Key: keyRef}
	c := m.ProvenanceContainer(p, "tekton", "provenance")
	t := v1.PipelineTask{
		Name: ir.ProvenanceTask,
		TaskSpec: &v1.EmbeddedTask{
			Metadata: v1.PipelineTaskMetadata{Labels: kube.Labels(p.Labels)},
			TaskSpec: v1.TaskSpec{Steps: []v1.Step{fromContainer(c)}},
		},
	}
	_, subjects := kube.ProvenanceOf(p, "tekton")
	for _, sub := range subjects {
		if !slices.Contains(t.RunAfter, sub.Step.Name) {
			t.RunAfter = append(t.RunAfter, sub.Step.Name)
		}
	}
	return t
}
