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
		{Name: "b", NodeSelector: map[string]string{"pool": "dl", "zone": "b"}, Tolerations: []ir.Toleration{gpuToleration, {Key: "spot", Operator: "Exists"}}},
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
			{Name: "prep", Mounts: mount, NodeSelector: map[string]string{"pool": "cpu"}},
			{Name: "train", Mounts: mount, NodeSelector: map[string]string{"pool": "gpu"}, Retry: &ir.Retry{Limit: 2, Backoff: 30 * time.Second}},
			{Name: "legacy", Mounts: append(mount, ir.Mount{Volume: "out", MountPath: "/mnt/mlcube/out"}), NodeSelector: map[string]string{"pool": "cpu"}},
		},
	}
	var lines []string
	for _, w := range warnings(p, KindPipelineRun) {
		lines = append(lines, w.String())
	}
	got := strings.Join(lines, "\n")
	for _, want := range []string{
		"step legacy mounts 2 claims",
		"step train: Tekton retries at once; the 30s backoff is not applied",
		"pipeline.yaml: warning: steps: tekton: steps that share a claim ask for different nodes (prep, legacy on pool=cpu; train on pool=gpu)",
		"pipeline.yaml: warning: params: tekton: param dataset has no default",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("warnings lack %q:\n%s", want, got)
		}
	}
	p.Steps = p.Steps[:1]
	p.Params = nil
	if w := warnings(p, KindPipelineRun); len(w) != 0 {
		t.Errorf("one step on one claim: warnings %q", w)
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
