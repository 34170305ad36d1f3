package job_test

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	batchv1 "k8s.io/api/batch/v1"

	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/backends/job"
	"github.com/mlcube-compile/mlcube-compile/compiler"
	"github.com/mlcube-compile/mlcube-compile/internal/enginetest"
	"github.com/mlcube-compile/mlcube-compile/internal/manifestcheck"
)

// build compiles opts as the command does for the job engine, and emits
// the IR (manifestcheck.Build).
func build(t *testing.T, opts compiler.Options) enginetest.Emitted {
	t.Helper()
	return manifestcheck.Build(t, job.Engine{}, opts, emit.Options{})
}

// TestKueueJob checks the Job of a queued task: the labels on the Job,
// not on its pods, which Kueue admits with it, and the Job suspended;
// without a queue, neither.
func TestKueueJob(t *testing.T) {
	dir := enginetest.Example(t, "shared-gpu-queue")
	queued := map[string]map[string]string{
		enginetest.QueueLabel:    {"metadata.labels": "team-a-gpu"},
		enginetest.PriorityLabel: {"metadata.labels": "team-a-normal"},
		"suspend":                {"spec": "true"},
		"priorityClassName":      {"spec.template.spec": "batch-low"},
	}
	for name, c := range map[string]struct {
		platform string
		want     map[string]map[string]string
	}{
		"queued": {filepath.Join(dir, "platform.yaml"), queued},
		// A platform of no queue, in place of the platform.yaml beside the
		// cube that the compile would otherwise read.
		"unqueued": {filepath.Join(enginetest.WriteFiles(t, map[string]string{"platform.yaml": "namespace: team-a\n"}),
			"platform.yaml"), map[string]map[string]string{}},
	} {
		t.Run(name, func(t *testing.T) {
			out := build(t, compiler.Options{MLCube: dir, Task: "finetune", Platform: c.platform}).Must(t)
			run, ok := out.Run.(*batchv1.Job)
			if !ok {
				t.Fatalf("the run is a %T, want a Job", out.Run)
			}
			if diff := cmp.Diff(c.want, enginetest.KueueFields(enginetest.Tree(t, run)), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("the Job (-want +got):\n%s", diff)
			}
		})
	}
}
