package tekton

import (
	"strings"
	"testing"
	"time"

	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

var gpuToleration = ir.Toleration{Key: "nvidia.com/gpu", Operator: "Exists", Effect: "NoSchedule"}

func TestCommonSchedulingKeepsOnlyWhatEveryStepHas(t *testing.T) {
	steps := []*ir.Step{
		{Name: "a", NodeSelector: map[string]string{"pool": "dl", "zone": "a"}, Tolerations: []ir.Toleration{gpuToleration}},
		{Name: "b", NodeSelector: map[string]string{"pool": "dl", "zone": "b"},
			Tolerations: []ir.Toleration{gpuToleration, {Key: "spot", Operator: "Exists"}}},
	}
	sel, tols := commonScheduling(steps)
	if len(sel) != 1 || sel["pool"] != "dl" {
		t.Errorf("node selector %v, want pool=dl only", sel)
	}
	if len(tols) != 1 || tols[0].Key != "nvidia.com/gpu" {
		t.Errorf("tolerations %v, want the GPU one only", tols)
	}
	if sel, tols := commonScheduling(append(steps, &ir.Step{Name: "c"})); sel != nil || len(tols) != 0 {
		t.Errorf("a step without scheduling leaves %v %v, want nothing", sel, tols)
	}
}

func TestWarnings(t *testing.T) {
	mount := []ir.Mount{{Volume: "workspace", MountPath: "/mnt/mlcube"}}
	p := &ir.Pipeline{
		Spec:   diag.At(diag.Pos{File: "pipeline.yaml"}),
		Params: []ir.Param{{Name: "dataset"}},
		Steps: []*ir.Step{
			{Name: "prep", Mounts: mount},
			{Name: "train", Loc: diag.At(diag.Pos{File: "pipeline.yaml", Line: 9}), Mounts: mount,
				Resources: ir.Resources{GPU: 1}, Tolerations: []ir.Toleration{gpuToleration},
				Retry: &ir.Retry{Limit: 2, Backoff: 30 * time.Second}},
			{Name: "legacy", Mounts: append(mount, ir.Mount{Volume: "out", MountPath: "/mnt/mlcube/out"})},
		},
	}
	got := warningText(p)
	for _, want := range []string{
		"step legacy mounts 2 claims",
		"step train: Tekton retries at once; the 30s backoff is not applied",
		"pipeline.yaml:9:0: warning: step train asks for GPUs, with no node selector, and runs on Tekton's affinity " +
			"assistant's node; set gpu.nodeSelector",
		"pipeline.yaml: warning: params: param dataset has no default",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("warnings lack %q:\n%s", want, got)
		}
	}
	p.Steps[1].NodeSelector = map[string]string{"pool": "gpu"}
	if got := warningText(p); strings.Contains(got, "asks for GPUs") {
		t.Errorf("a GPU step with a node selector draws the assistant to it, yet:\n%s", got)
	}
	setTekton(t, p, func(s *settings) { s.Coschedule = coscheduleDisabled })
	p.Steps[1].NodeSelector = nil
	if got := warningText(p); strings.Contains(got, "asks for GPUs") || strings.Contains(got, "mounts 2 claims") {
		t.Errorf("with coschedule: disabled no assistant places a step, yet:\n%s", got)
	}
	p.Steps = p.Steps[:1]
	p.Steps[0].Command = []string{"python3", "/opt/prep.py"}
	p.Params = nil
	if w := warnings(p, KindPipelineRun); len(w) != 0 {
		t.Errorf("one step on one claim: warnings %q", w)
	}
}

func warningText(p *ir.Pipeline) string {
	var lines []string
	for _, w := range warnings(p, KindPipelineRun) {
		lines = append(lines, w.String())
	}
	return strings.Join(lines, "\n")
}

// A GPU step and a CPU step that share a claim: the run's pod template,
// which alone places the affinity assistant, holds the GPU step's node
// selector and toleration, and neither step's TaskRun spec overrides
// them; with coschedule: disabled each step keeps its own.
func TestAssistantIsPlacedWhereEveryStepItPlacesCanRun(t *testing.T) {
	mount := []ir.Mount{{Volume: "workspace", MountPath: "/mnt/mlcube"}}
	p := &ir.Pipeline{
		Spec:    diag.At(diag.Pos{File: "pipeline.yaml"}),
		Volumes: []ir.Volume{{Name: "workspace", ClaimName: "data"}},
		Steps: []*ir.Step{
			{Name: "prep", Image: "prep:1", Mounts: mount},
			{Name: "train", Image: "train:1", Mounts: mount, Resources: ir.Resources{GPU: 1, GPUResource: "nvidia.com/gpu"},
				NodeSelector: map[string]string{"pool": "gpu"}, Tolerations: []ir.Toleration{gpuToleration}},
			{Name: "report", Image: "report:1", NodeSelector: map[string]string{"pool": "cpu"}},
		},
	}
	pr, err := compile(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	tmpl := pr.Spec.TaskRunTemplate.PodTemplate
	if tmpl == nil || tmpl.NodeSelector["pool"] != "gpu" || len(tmpl.Tolerations) != 1 ||
		tmpl.Tolerations[0].Key != "nvidia.com/gpu" {
		t.Fatalf("the run's pod template %+v, want the GPU step's node selector and toleration", tmpl)
	}
	own := map[string]map[string]string{}
	for _, spec := range pr.Spec.TaskRunSpecs {
		own[spec.PipelineTaskName] = spec.PodTemplate.NodeSelector
	}
	if _, ok := own["train"]; ok {
		t.Errorf("train keeps scheduling of its own (%v), which Tekton would lay over the run's", own["train"])
	}
	if own["report"]["pool"] != "cpu" {
		t.Errorf("report, which mounts no claim, lost its own node selector: %v", own)
	}
	setTekton(t, p, func(s *settings) { s.Coschedule = coscheduleDisabled })
	if pr, err = compile(p, Options{}); err != nil {
		t.Fatal(err)
	}
	if tmpl := pr.Spec.TaskRunTemplate.PodTemplate; tmpl != nil && len(tmpl.NodeSelector)+len(tmpl.Tolerations) > 0 {
		t.Errorf("with coschedule: disabled the run's template %+v, want nothing every step lacks", tmpl)
	}
}

func TestTektonRefusesWhatNoAssistantNodeCanRun(t *testing.T) {
	mount := []ir.Mount{{Volume: "workspace", MountPath: "/mnt/mlcube"}}
	p := &ir.Pipeline{
		Spec:     diag.At(diag.Pos{File: "pipeline.yaml"}),
		Platform: diag.At(diag.Pos{File: "platform.yaml"}),
		Volumes:  []ir.Volume{{Name: "workspace", ClaimName: "data"}},
		Steps: []*ir.Step{
			{Name: "prep", Image: "prep:1", Mounts: mount, NodeSelector: map[string]string{"pool": "cpu"}},
			{Name: "train", Image: "train:1", Mounts: mount, NodeSelector: map[string]string{"pool": "gpu"}},
		},
	}
	_, err := compile(p, Options{})
	if err == nil || !strings.Contains(err.Error(),
		"pipeline.yaml: steps: steps prep (pool=cpu) and train (pool=gpu) share a claim") {
		t.Errorf("want the two node pools refused, got %v", err)
	}
	p.Steps[0].NodeSelector = nil
	p.Volumes = []ir.Volume{{Name: "workspace",
		Create: &ir.ClaimTemplate{Size: "1Gi", AccessModes: []string{"ReadWriteOncePod"}}}}
	_, err = compile(p, Options{})
	if err == nil || !strings.Contains(err.Error(), "platform.yaml: storage.accessModes: ReadWriteOncePod: Tekton's "+
		"affinity assistant (coschedule: workspaces) mounts the claim workspace in its own pod") {
		t.Errorf("want ReadWriteOncePod refused, got %v", err)
	}
	setTekton(t, p, func(s *settings) { s.Coschedule = coscheduleDisabled })
	if _, err := compile(p, Options{}); err != nil {
		t.Errorf("with coschedule: disabled, ReadWriteOncePod is the cluster's to honour: %v", err)
	}
}

// The kubectl task of a distributed step binds the claims Tekton creates,
// to learn their names, so the affinity assistant places it too.
func TestBoundClaimsCountsKubectlTasks(t *testing.T) {
	mount := []ir.Mount{{Volume: "workspace", MountPath: "/mnt/mlcube"}}
	mpi := &ir.Step{Name: "train", Kind: ir.MPI, Mounts: mount}
	created := &ir.Pipeline{Volumes: []ir.Volume{{Name: "workspace", Create: &ir.ClaimTemplate{Size: "1Gi"}}}}
	existing := &ir.Pipeline{Volumes: []ir.Volume{{Name: "workspace", ClaimName: "nfs"}}}
	if n := boundClaims(created, mpi); n != 1 {
		t.Errorf("kubectl task over a created claim binds %d, want 1", n)
	}
	if n := boundClaims(existing, mpi); n != 0 {
		t.Errorf("kubectl task over an existing claim binds %d, want 0 (it names the claim)", n)
	}
}
