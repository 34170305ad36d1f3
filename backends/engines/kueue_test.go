package engines_test

import (
	"fmt"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/internal/enginetest"
	"github.com/mlcube-compile/mlcube-compile/internal/manifestcheck"
)

// mpiJobFields is what the example's MPIJob must carry on every engine:
// the queue labels on the MPIJob alone, which Kueue admits as one
// workload, created suspended; the priority class on every pod.
var mpiJobFields = map[string]map[string]string{
	enginetest.QueueLabel:    {"metadata.labels": "team-a-gpu-large"},
	enginetest.PriorityLabel: {"metadata.labels": "team-a-urgent"},
	"suspend":                {"spec.runPolicy": "true"},
	"priorityClassName": {"spec.mpiReplicaSpecs.Launcher.template.spec": "batch-high",
		"spec.mpiReplicaSpecs.Worker.template.spec": "batch-high"},
}

// runFields are the Kueue keys of out's run object.
func runFields(t *testing.T, out enginetest.Emitted) map[string]map[string]string {
	t.Helper()
	return enginetest.KueueFields(enginetest.Tree(t, out.Run))
}

// TestKueueLabelsOnWhatKueueAdmits compiles examples/shared-gpu-queue on
// each engine and checks which objects carry Kueue's labels and start
// suspended: a queued container step's pod (the pod integration), the
// MPIJob (not its pods, not the kubectl pods that create and wait for
// it), never the run object; prepare, with queue: "", is not queued.
func TestKueueLabelsOnWhatKueueAdmits(t *testing.T) {
	want := map[string]map[string]map[string]string{
		"argo": {
			enginetest.QueueLabel:    {"spec.templates[finetune].metadata.labels": "team-a-gpu"},
			enginetest.PriorityLabel: {"spec.templates[finetune].metadata.labels": "team-a-normal"},
			"priorityClassName":      {"spec.templates[prepare]": "batch-low", "spec.templates[finetune]": "batch-low"},
		},
		"tekton": {
			enginetest.QueueLabel:    {"spec.pipelineSpec.tasks[finetune].taskSpec.metadata.labels": "team-a-gpu"},
			enginetest.PriorityLabel: {"spec.pipelineSpec.tasks[finetune].taskSpec.metadata.labels": "team-a-normal"},
			"priorityClassName": {"spec.taskRunSpecs[prepare].podTemplate": "batch-low",
				"spec.taskRunSpecs[finetune].podTemplate": "batch-low"},
		},
	}
	for _, backend := range []string{"argo", "tekton"} {
		t.Run(backend, func(t *testing.T) {
			out := manifestcheck.Example(t, backend, "shared-gpu-queue")
			if diff := cmp.Diff(want[backend], runFields(t, out)); diff != "" {
				t.Errorf("the run object (-want +got):\n%s", diff)
			}
			jobs := enginetest.Jobs(t, out.Run)
			if len(jobs) != 1 {
				t.Fatalf("want one MPIJob, got %d objects", len(jobs))
			}
			enginetest.MPIJob(t, jobs[0])
			if diff := cmp.Diff(mpiJobFields, enginetest.KueueFields(jobs[0])); diff != "" {
				t.Errorf("the MPIJob (-want +got):\n%s", diff)
			}
		})
	}
}

// TestKueueDaskOutsideQueue checks that a Dask step run by the Dask
// operator with queue: "" under a platform's queue compiles, and that
// neither its DaskJob nor the pods
// that create it carry a queue label: Kueue has no DaskJob integration
// (a Dask step that stays in the queue is refused; testdata/bad/
// kueue-dask-in-queue).
func TestKueueDaskOutsideQueue(t *testing.T) {
	dir := enginetest.WriteFiles(t, map[string]string{
		// A platform's WorkloadPriorityClass is no mistake when its steps
		// all leave its queue.
		"platform.yaml": "queue: team-a-gpu\nworkloadPriorityClass: team-a-normal\npriorityClassName: batch-low\n" +
			"dask: {kind: DaskJob}\n",
		"pipeline.yaml": `name: bench
steps:
  benchmark:
    queue: ""
    dask:
      function: dask_bench.run
      workers: 2
      image: ghcr.io/dask/dask:2024.1.0
      output: {path: out.csv}
`,
	})
	for _, backend := range []string{"argo", "tekton"} {
		t.Run(backend, func(t *testing.T) {
			out := manifestcheck.BuildFor(t, backend, manifestcheck.Specs(dir), emit.Options{}).Must(t)
			got := map[string]map[string]string{}
			for k, paths := range runFields(t, out) {
				got["run "+k] = paths
			}
			for _, job := range enginetest.Jobs(t, out.Run) {
				for k, paths := range enginetest.KueueFields(job) {
					got[fmt.Sprint(job["kind"], " ", k)] = paths
				}
			}
			// Only the Dask pods get the platform's priority class.
			var keys []string
			for k := range got {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			if diff := cmp.Diff([]string{"DaskJob priorityClassName"}, keys); diff != "" {
				t.Errorf("Kueue keys (-want +got):\n%s\n%v", diff, got)
			}
		})
	}
}
