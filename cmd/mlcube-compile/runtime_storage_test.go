package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// Two steps of seed 002's cube that read one dataset and write apart, so
// that they may run at the same time, or one after the other.
const (
	parallelSteps = "  a: {task: train}\n  b: {task: train, outputs: {output_dir: out-b/}}\n"
	chainedSteps  = "  a: {task: train}\n  b: {task: train, after: [a], outputs: {output_dir: out-b/}}\n"
	mpiStep       = "  a: {task: train, mpi: {workers: 2}}\n"
)

func storagePipeline(t *testing.T, steps, storage string) string {
	t.Helper()
	cube, err := filepath.Abs(filepath.Join(repoRoot, "examples", "resnet50-multinode"))
	if err != nil {
		t.Fatal(err)
	}
	return specDir(t, map[string]string{
		"pipeline.yaml": "name: shared\ncubes: {resnet: " + cube + "}\nsteps:\n" + steps,
		"platform.yaml": "storage:\n" + storage,
	})
}

// claimModes is the access modes of the claim Argo creates for the run.
func claimModes(t *testing.T, out string) string {
	t.Helper()
	wf := validateWorkflow(t, "output", out)
	if len(wf.Spec.VolumeClaimTemplates) != 1 {
		t.Fatalf("want one volumeClaimTemplate, got %d", len(wf.Spec.VolumeClaimTemplates))
	}
	var modes []string
	for _, m := range wf.Spec.VolumeClaimTemplates[0].Spec.AccessModes {
		modes = append(modes, string(m))
	}
	return strings.Join(modes, ",")
}

// A claim the run creates is ReadWriteMany by default when pods on
// several nodes may mount it at once, ReadWriteOnce otherwise.
func TestClaimAccessModeDefaults(t *testing.T) {
	for steps, want := range map[string]string{parallelSteps: "ReadWriteMany", mpiStep: "ReadWriteMany", chainedSteps: "ReadWriteOnce"} {
		out, stderr := compileDir(t, "argo", storagePipeline(t, steps, "  size: 100Gi\n"))
		if got := claimModes(t, out); got != want {
			t.Errorf("steps\n%s: access modes %s, want %s", steps, got, want)
		}
		// A default the cluster's storage class may not offer is said.
		if warned := strings.Contains(stderr, "platform.yaml:1:1: warning: storage.accessModes: the claim made for each run is ReadWriteMany"); warned != (want == "ReadWriteMany") {
			t.Errorf("steps\n%s: warned about ReadWriteMany: %v, want %v:\n%s", steps, warned, want == "ReadWriteMany", stderr)
		}
	}
}

// An explicit ReadWriteOnce claim that MPI workers mount is an error at
// accessModes; steps that may share it at once are a warning on Argo.
func TestReadWriteOnceClaims(t *testing.T) {
	dir := storagePipeline(t, mpiStep, "  accessModes: [ReadWriteOnce]\n")
	_, stderr, code := compileArgs(t, append([]string{"mlcube-compile"}, exampleArgs(dir)...)...)
	if code != 1 || !strings.Contains(stderr, "platform.yaml:2:3: storage.accessModes: ReadWriteOnce: step \"a\" runs pods on several nodes") {
		t.Errorf("exit %d, stderr %q; want an error at accessModes", code, stderr)
	}
	_, stderr = compileDir(t, "argo", storagePipeline(t, parallelSteps, "  accessModes: [ReadWriteOnce]\n"))
	if !strings.Contains(stderr, "platform.yaml:2:3: warning: storage.accessModes: argo: steps a and b may run at the same time and both mount the ReadWriteOnce claim workspace") {
		t.Errorf("no warning at accessModes about parallel steps on a ReadWriteOnce claim: %q", stderr)
	}
	_, stderr = compileDir(t, "argo", storagePipeline(t, chainedSteps, "  accessModes: [ReadWriteOnce]\n"))
	if strings.Contains(stderr, "may run at the same time") {
		t.Errorf("chained steps warned about: %q", stderr)
	}
}

// Results on a claim made per run vanish with it: each engine says when.
func TestPerRunClaimWarnsWhereResultsGo(t *testing.T) {
	dir := storagePipeline(t, chainedSteps, "  size: 100Gi\n")
	for backend, want := range map[string]string{
		"argo":   "deleted when the run succeeds (volumeClaimGC: OnWorkflowSuccess)",
		"tekton": "deleted with the run",
		"job":    "results do not outlive the Job",
	} {
		if backend == "job" {
			dir = storagePipeline(t, "  a: {task: train}\n", "  size: 100Gi\n")
		}
		out, stderr := compileDir(t, backend, dir)
		if !strings.Contains(stderr, want) || !strings.Contains(stderr, "storage.pvc") {
			t.Errorf("%s: stderr %q lacks %q and how to keep results", backend, stderr, want)
		}
		if backend == "argo" && !strings.Contains(out, "volumeClaimGC:\n    strategy: OnWorkflowSuccess") {
			t.Errorf("argo: the Workflow does not say when its claim goes")
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
		dir := storagePipeline(t, "  a: {task: train}\n", "  accessModes: [ReadOnlyMany]\n")
		_, stderr, code := compileArgs(t, append([]string{"mlcube-compile", "--backend", backend}, exampleArgs(dir)...)...)
		if code != 1 || !strings.Contains(stderr, "platform.yaml:2:3: storage.accessModes: ReadOnlyMany: the claim made for each run starts empty, and no step could write to it") {
			t.Errorf("%s: exit %d, stderr %q; want ReadOnlyMany refused at accessModes", backend, code, stderr)
		}
	}
	dir := storagePipeline(t, chainedSteps, "  accessModes: [ReadWriteOncePod]\n")
	_, stderr, code := compileArgs(t, append([]string{"mlcube-compile", "--backend", "tekton"}, exampleArgs(dir)...)...)
	if code != 1 || !strings.Contains(stderr, "platform.yaml:2:3: storage.accessModes: ReadWriteOncePod: Tekton's affinity assistant (coschedule: workspaces) mounts the claim") {
		t.Errorf("tekton: exit %d, stderr %q; want ReadWriteOncePod refused at accessModes", code, stderr)
	}
	compileDir(t, "argo", dir)
	dir = storagePipeline(t, chainedSteps, "  accessModes: [ReadWriteOncePod]\ntekton: {coschedule: disabled}\n")
	compileDir(t, "tekton", dir)
}
