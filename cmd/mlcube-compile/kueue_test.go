package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"sigs.k8s.io/yaml"
)

// The keys that put a workload in a Kueue queue, hold it until Kueue
// admits it, and set its priorities.
const (
	queueLabel    = "kueue.x-k8s.io/queue-name"
	priorityLabel = "kueue.x-k8s.io/priority-class"
)

var kueueKeys = []string{queueLabel, priorityLabel, "suspend", "priorityClassName"}

// kueueFields finds every key of kueueKeys in a decoded manifest: for each
// key, the path of each map that holds it, with its value. A list item is
// named by its name (or pipelineTaskName), so paths read as the objects
// they are; strings are not looked into, so an embedded job's manifest is
// found on its own.
func kueueFields(v any) map[string]map[string]string {
	out := map[string]map[string]string{}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for _, k := range kueueKeys {
				if x, ok := v[k]; ok {
					if out[k] == nil {
						out[k] = map[string]string{}
					}
					out[k][path] = fmt.Sprint(x)
				}
			}
			for k, x := range v {
				walk(join(path, k), x)
			}
		case []any:
			for i, x := range v {
				walk(fmt.Sprintf("%s[%s]", path, itemName(x, i)), x)
			}
		}
	}
	walk("", v)
	return out
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func itemName(v any, i int) string {
	if m, ok := v.(map[string]any); ok {
		for _, k := range []string{"name", "pipelineTaskName"} {
			if n, ok := m[k].(string); ok {
				return n
			}
		}
	}
	return fmt.Sprint(i)
}

// runFields decodes the run object of a manifest and finds its Kueue keys.
func runFields(t *testing.T, manifest string) map[string]map[string]string {
	t.Helper()
	var m map[string]any
	if err := yaml.Unmarshal([]byte(runDocument(t, "output", manifest)), &m); err != nil {
		t.Fatal(err)
	}
	return kueueFields(m)
}

// mpiJobFields is what the example's MPIJob must carry on every engine:
// the queue labels on the MPIJob alone, which Kueue admits as one
// workload, created suspended; the priority class on every pod.
var mpiJobFields = map[string]map[string]string{
	queueLabel:          {"metadata.labels": "team-a-gpu-large"},
	priorityLabel:       {"metadata.labels": "team-a-urgent"},
	"suspend":           {"spec.runPolicy": "true"},
	"priorityClassName": {"spec.mpiReplicaSpecs.Launcher.template.spec": "batch-high", "spec.mpiReplicaSpecs.Worker.template.spec": "batch-high"},
}

// TestKueueLabelsOnWhatKueueAdmits compiles examples/shared-gpu-queue on
// each engine and checks which objects carry Kueue's labels and start
// suspended: a queued container step's pod (the pod integration), the
// MPIJob (not its pods, not the kubectl pods that create and wait for
// it), never the run object; prepare, with queue: "", is not queued.
func TestKueueLabelsOnWhatKueueAdmits(t *testing.T) {
	want := map[string]map[string]map[string]string{
		"argo": {
			queueLabel:          {"spec.templates[finetune].metadata.labels": "team-a-gpu"},
			priorityLabel:       {"spec.templates[finetune].metadata.labels": "team-a-normal"},
			"priorityClassName": {"spec.templates[prepare]": "batch-low", "spec.templates[finetune]": "batch-low"},
		},
		"tekton": {
			queueLabel:          {"spec.pipelineSpec.tasks[finetune].taskSpec.metadata.labels": "team-a-gpu"},
			priorityLabel:       {"spec.pipelineSpec.tasks[finetune].taskSpec.metadata.labels": "team-a-normal"},
			"priorityClassName": {"spec.taskRunSpecs[prepare].podTemplate": "batch-low", "spec.taskRunSpecs[finetune].podTemplate": "batch-low"},
		},
	}
	for _, backend := range []string{"argo", "tekton"} {
		t.Run(backend, func(t *testing.T) {
			out := compileExample(t, backend, "shared-gpu-queue")
			if diff := cmp.Diff(want[backend], runFields(t, out)); diff != "" {
				t.Errorf("the run object (-want +got):\n%s", diff)
			}
			jobs := embeddedJobs(t, backend, out)
			if len(jobs) != 1 {
				t.Fatalf("want one MPIJob, got %d objects", len(jobs))
			}
			validateMPIJob(t, jobs[0])
			if diff := cmp.Diff(mpiJobFields, kueueFields(jobs[0])); diff != "" {
				t.Errorf("the MPIJob (-want +got):\n%s", diff)
			}
		})
	}
}

// TestKueueJob checks the Job of a queued task: the labels on the Job,
// not on its pods, which Kueue admits with it, and the Job suspended;
// without a queue, neither.
func TestKueueJob(t *testing.T) {
	dir := filepath.Join(repoRoot, "examples", "shared-gpu-queue")
	queued := map[string]map[string]string{
		queueLabel:          {"metadata.labels": "team-a-gpu"},
		priorityLabel:       {"metadata.labels": "team-a-normal"},
		"suspend":           {"spec": "true"},
		"priorityClassName": {"spec.template.spec": "batch-low"},
	}
	for name, c := range map[string]struct {
		args []string
		want map[string]map[string]string
	}{
		"queued": {[]string{"--platform", filepath.Join(dir, "platform.yaml")}, queued},
		// A platform of no queue, in place of the platform.yaml beside the
		// cube that the compile would otherwise read.
		"unqueued": {[]string{"--platform", writeFiles(t, map[string]string{"platform.yaml": "namespace: team-a\n"}) + "/platform.yaml"}, map[string]map[string]string{}},
	} {
		t.Run(name, func(t *testing.T) {
			args := append([]string{"mlcube-compile", "--backend", "job", "--mlcube", dir, "--task", "finetune"}, c.args...)
			out, stderr, code := compileArgs(t, args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			validateJob(t, "output", out)
			if diff := cmp.Diff(c.want, runFields(t, out), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("the Job (-want +got):\n%s", diff)
			}
		})
	}
}

// TestKueueDaskOutsideQueue checks that a Dask step with queue: "" under
// a platform's queue compiles, and that neither its DaskJob nor the pods
// that create it carry a queue label: Kueue has no DaskJob integration
// (a Dask step that stays in the queue is refused; testdata/bad/
// kueue-dask-in-queue).
func TestKueueDaskOutsideQueue(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		// A platform's WorkloadPriorityClass is no mistake when its steps
		// all leave its queue.
		"platform.yaml": "queue: team-a-gpu\nworkloadPriorityClass: team-a-normal\npriorityClassName: batch-low\n",
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
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, backend := range []string{"argo", "tekton"} {
		t.Run(backend, func(t *testing.T) {
			out, stderr, code := compileArgs(t, "mlcube-compile", "--backend", backend, "--platform", filepath.Join(dir, "platform.yaml"), "--task", filepath.Join(dir, "pipeline.yaml"))
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			got := map[string]map[string]string{}
			for k, paths := range runFields(t, out) {
				got["run "+k] = paths
			}
			for _, job := range embeddedJobs(t, backend, out) {
				for k, paths := range kueueFields(job) {
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
