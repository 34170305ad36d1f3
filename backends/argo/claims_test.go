package argo_test

import (
	"strings"
	"testing"

	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/internal/enginetest"
	"github.com/mlcube-compile/mlcube-compile/internal/manifestcheck"
)

// Two steps of seed 002's cube that read one dataset and write apart, so
// that they may run at the same time, or one after the other.
const (
	parallelSteps = "  a: {task: train}\n  b: {task: train, outputs: {output_dir: out-b/}}\n"
	chainedSteps  = "  a: {task: train}\n  b: {task: train, after: [a], outputs: {output_dir: out-b/}}\n"
	mpiStep       = "  a: {task: train, mpi: {workers: 2}}\n"
)

// claimModes is the access modes of the claim the Workflow creates for
// the run.
func claimModes(t *testing.T, out enginetest.Emitted) string {
	t.Helper()
	wf := workflow(t, out)
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
	for steps, want := range map[string]string{parallelSteps: "ReadWriteMany", mpiStep: "ReadWriteMany",
		chainedSteps: "ReadWriteOnce"} {
		out := build(t, manifestcheck.Specs(enginetest.StoragePipeline(t, steps, "  size: 100Gi\n")), emit.Options{})
		if got := claimModes(t, out); got != want {
			t.Errorf("steps\n%s: access modes %s, want %s", steps, got, want)
		}
		// A default the cluster's storage class may not offer is said.
		stderr := out.Stderr()
		warned := strings.Contains(stderr,
			"platform.yaml:1:1: warning: storage.accessModes: the claim made for each run is ReadWriteMany")
		if warned != (want == "ReadWriteMany") {
			t.Errorf("steps\n%s: warned about ReadWriteMany: %v, want %v:\n%s", steps, warned, want == "ReadWriteMany", stderr)
		}
	}
}

// An explicit ReadWriteOnce claim that MPI workers mount is an error at
// accessModes; steps that may share it at once are a warning on Argo.
func TestReadWriteOnceClaims(t *testing.T) {
	out := build(t, manifestcheck.Specs(enginetest.StoragePipeline(t, mpiStep,
		"  accessModes: [ReadWriteOnce]\n")), emit.Options{})
	if stderr := out.Stderr(); !out.Failed() || !strings.Contains(stderr,
		"platform.yaml:2:3: storage.accessModes: ReadWriteOnce: step \"a\" runs pods on several nodes") {
		t.Errorf("failed %v, stderr %q; want an error at accessModes", out.Failed(), stderr)
	}
	out = build(t, manifestcheck.Specs(enginetest.StoragePipeline(t, parallelSteps, "  accessModes: [ReadWriteOnce]\n")),
		emit.Options{}).Must(t)
	if stderr := out.Stderr(); !strings.Contains(stderr, "platform.yaml:2:3: warning: storage.accessModes: argo: steps "+
		"a and b may run at the same time and both mount the ReadWriteOnce claim workspace") {
		t.Errorf("no warning at accessModes about parallel steps on a ReadWriteOnce claim: %q", stderr)
	}
	out = build(t, manifestcheck.Specs(enginetest.StoragePipeline(t, chainedSteps, "  accessModes: [ReadWriteOnce]\n")),
		emit.Options{}).Must(t)
	if stderr := out.Stderr(); strings.Contains(stderr, "may run at the same time") {
		t.Errorf("chained steps warned about: %q", stderr)
	}
}
