package engines_test

import (
	"strings"
	"testing"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"

	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/internal/enginetest"
	"github.com/mlcube-compile/mlcube-compile/internal/manifestcheck"
)

// Two steps of seed 002's cube, one after the other.
const chainedSteps = "  a: {task: train}\n  b: {task: train, after: [a], outputs: {output_dir: out-b/}}\n"

// Results on a claim made per run vanish with it: each engine says when.
func TestPerRunClaimWarnsWhereResultsGo(t *testing.T) {
	dir := enginetest.StoragePipeline(t, chainedSteps, "  size: 100Gi\n")
	for backend, want := range map[string]string{
		"argo":   "deleted when the run succeeds (volumeClaimGC: OnWorkflowSuccess)",
		"tekton": "deleted with the run",
		"job":    "results do not outlive the Job",
	} {
		if backend == "job" {
			dir = enginetest.StoragePipeline(t, "  a: {task: train}\n", "  size: 100Gi\n")
		}
		out := manifestcheck.BuildFor(t, backend, manifestcheck.Specs(dir), emit.Options{}).Must(t)
		if stderr := out.Stderr(); !strings.Contains(stderr, want) || !strings.Contains(stderr, "storage.pvc") {
			t.Errorf("%s: stderr %q lacks %q and how to keep results", backend, stderr, want)
		}
		if wf, ok := out.Run.(*wfv1.Workflow); ok &&
			(wf.Spec.VolumeClaimGC == nil || wf.Spec.VolumeClaimGC.Strategy != wfv1.VolumeClaimGCOnSuccess) {
			t.Errorf("argo: the Workflow does not say when its claim goes: %+v", wf.Spec.VolumeClaimGC)
		}
	}
}

// A claim made for each run starts empty: made ReadOnlyMany alone, no
// step could write to it, on any backend. Made ReadWriteOncePod, Tekton's
// affinity assistant mounts it in its own pod, so no step could; with the
// cluster's coschedule: disabled, said in the platform, it is the
// cluster's to honour.
func TestClaimsNoStepCouldUse(t *testing.T) {
	for _, backend := range []string{"argo", "tekton", "job"} {
		dir := enginetest.StoragePipeline(t, "  a: {task: train}\n", "  accessModes: [ReadOnlyMany]\n")
		out := manifestcheck.BuildFor(t, backend, manifestcheck.Specs(dir), emit.Options{})
		if stderr := out.Stderr(); !out.Failed() || !strings.Contains(stderr, "platform.yaml:2:3: storage.accessModes: "+
			"ReadOnlyMany: the claim made for each run starts empty, and no step could write to it") {
			t.Errorf("%s: failed %v, stderr %q; want ReadOnlyMany refused at accessModes", backend, out.Failed(), stderr)
		}
	}
	dir := enginetest.StoragePipeline(t, chainedSteps, "  accessModes: [ReadWriteOncePod]\n")
	out := manifestcheck.BuildFor(t, "tekton", manifestcheck.Specs(dir), emit.Options{})
	if stderr := out.Stderr(); !out.Failed() || !strings.Contains(stderr, "platform.yaml:2:3: storage.accessModes: "+
		"tekton: ReadWriteOncePod: Tekton's affinity assistant (coschedule: workspaces) mounts the claim") {
		t.Errorf("tekton: failed %v, stderr %q; want ReadWriteOncePod refused at accessModes", out.Failed(), stderr)
	}
	manifestcheck.BuildFor(t, "argo", manifestcheck.Specs(dir), emit.Options{}).Must(t)
	dir = enginetest.StoragePipeline(t, chainedSteps,
		"  accessModes: [ReadWriteOncePod]\ntekton: {coschedule: disabled}\n")
	manifestcheck.BuildFor(t, "tekton", manifestcheck.Specs(dir), emit.Options{}).Must(t)
}
