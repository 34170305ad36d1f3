package engines_test

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/compiler"
	"github.com/mlcube-compile/mlcube-compile/internal/enginetest"
	"github.com/mlcube-compile/mlcube-compile/internal/manifestcheck"
)

// kueueFrameworks are Kueue's names for the integrations that admit each
// kind of workload (group/Kind, "" the core group), the names its
// Configuration's integrations.frameworks lists (sigs.k8s.io/kueue
// v0.19.2, each FrameworkName: pkg/controller/jobs/job/job_controller.go,
// pkg/controller/jobs/pod/pod_controller.go,
// pkg/controller/jobs/mpijob/mpijob_controller.go,
// pkg/controller/jobs/trainjob/trainjob_controller.go). None of the four
// has a DependencyList (pkg/controller/jobframework/integrationmanager.go,
// checkEnabledListDependencies): a TrainJob's JobSet is admitted with the
// TrainJob, without the jobset integration.
var kueueFrameworks = map[string]string{
	"batch/Job":                     "batch/job",
	"/Pod":                          "pod",
	"kubeflow.org/MPIJob":           "kubeflow.org/mpijob",
	"trainer.kubeflow.org/TrainJob": "trainer.kubeflow.org/trainjob",
}

// queuedWorkloads are the kinds (group/Kind) of the objects out labels
// with a Kueue queue: the Job that is the run, the pods of the run
// object's steps (an Argo template's or a Tekton task's metadata), and
// the jobs the run creates.
func queuedWorkloads(t *testing.T, out enginetest.Emitted, into map[string]bool) {
	t.Helper()
	run := enginetest.Tree(t, out.Run)
	for path := range enginetest.KueueFields(run)[enginetest.QueueLabel] {
		if run["kind"] == "Job" && path == "metadata.labels" {
			into["batch/Job"] = true
		} else {
			into["/Pod"] = true
		}
	}
	for _, job := range enginetest.Jobs(t, out.Run) {
		if _, ok := enginetest.KueueFields(job)[enginetest.QueueLabel]["metadata.labels"]; ok {
			group, _, grouped := strings.Cut(job["apiVersion"].(string), "/")
			if !grouped {
				group = ""
			}
			into[group+"/"+job["kind"].(string)] = true
		}
	}
}

// TestKueueDocFrameworks checks that the Kueue configuration docs/kueue.md
// gives users to copy, and the one the end-to-end cluster runs
// (scripts/e2e/kueue.sh), enable Kueue's integration for every kind of
// object the compiler puts in a queue, on every engine: a TrainJob
// created suspended under a Kueue without its integration would wait
// forever.
func TestKueueDocFrameworks(t *testing.T) {
	queued := map[string]bool{}
	examples := map[string][]string{"argo": {"shared-gpu-queue"}, "tekton": {"shared-gpu-queue"}}
	for backend, names := range examples {
		for _, name := range names {
			queuedWorkloads(t, manifestcheck.Example(t, backend, name), queued)
		}
	}
	torch := enginetest.TorchPipeline(t, "    torch: {nodes: 2}\n", "queue: gpu-queue\n")
	for _, backend := range []string{"argo", "tekton"} {
		queuedWorkloads(t, manifestcheck.BuildFor(t, backend, manifestcheck.Specs(torch), emit.Options{}).Must(t), queued)
	}
	dir := enginetest.Example(t, "shared-gpu-queue")
	job := compiler.Options{MLCube: dir, Task: "finetune", Platform: filepath.Join(dir, "platform.yaml")}
	queuedWorkloads(t, manifestcheck.BuildFor(t, "job", job, emit.Options{}).Must(t), queued)

	var want []string
	for kind := range queued {
		name, ok := kueueFrameworks[kind]
		if !ok {
			t.Errorf("the compiler queues a %s, and kueueFrameworks has no Kueue integration for it", kind)
			continue
		}
		want = append(want, name)
	}
	sort.Strings(want)
	if len(want) < len(kueueFrameworks) {
		t.Errorf("the compiler queued only %v; a kind of kueueFrameworks is no longer queued, or this test misses a spec "+
			"that queues it", want)
	}
	root := enginetest.Root(t)
	for file, got := range map[string][]string{
		"docs/kueue.md":        docFrameworks(t, filepath.Join(root, "docs", "kueue.md")),
		"scripts/e2e/kueue.sh": scriptFrameworks(t, filepath.Join(root, "scripts", "e2e", "kueue.sh")),
	} {
		have := map[string]bool{}
		for _, f := range got {
			have[f] = true
		}
		for _, f := range want {
			if !have[f] {
				t.Errorf("%s: integrations.frameworks %v lacks %q, which the compiler queues", file, got, f)
			}
		}
	}
}

// docFrameworks is integrations.frameworks of the YAML block of file that
// configures Kueue's integrations.
func docFrameworks(t *testing.T, file string) []string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, block := range regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(string(b), -1) {
		if !strings.Contains(block[1], "integrations:") {
			continue
		}
		var cfg struct {
			Integrations struct {
				Frameworks []string `json:"frameworks"`
			} `json:"integrations"`
		}
		if err := yaml.Unmarshal([]byte(block[1]), &cfg); err != nil {
			t.Fatalf("%s: the integrations block: %v", file, err)
		}
		return cfg.Integrations.Frameworks
	}
	t.Fatalf("%s: no YAML block with integrations:", file)
	return nil
}

// scriptFrameworks is the frameworks: list of the Kueue configuration
// that file writes.
func scriptFrameworks(t *testing.T, file string) []string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*frameworks: (\[.*\])$`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("%s: no frameworks: [...] line", file)
	}
	var got []string
	if err := yaml.Unmarshal(m[1], &got); err != nil {
		t.Fatalf("%s: frameworks: %v", file, err)
	}
	return got
}
