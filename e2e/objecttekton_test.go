//go:build e2e

package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	tektonv1 "github.com/tektoncd/pipeline/pkg/apis/pipeline/v1"
)

// TestE2ETektonObjectStorage runs the object storage examples that
// Tekton runs (mixed-storage names Argo's artifact repository, which
// Tekton refuses) to Succeeded on the real node: each task's fetch step
// gets its inputs from the bucket and checks their digests, its upload
// step records each output's sha256 as a result and uploads it; every
// object's sha256 is checked against those results and what each task's
// step wrote, and every input a step read against the bucket.
func TestE2ETektonObjectStorage(t *testing.T) {
	t.Parallel()
	c, s := e2eCluster(t), e2eObjectStore(t)
	seedBucket(t, s)
	for _, name := range []string{"bucket-pipeline", "mnist-bucket"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			docs := compileObjectRun(t, name, "tekton", tektonImage)
			r := c.newTektonRun(t, "obj-"+name, docs, decodePipelineRun(t, docs[len(docs)-1]))
			s.credentials(t, c, r.ns)
			done := r.runSucceeded(t, 8*time.Minute)
			pods := r.tektonPods(t)
			results := taskResults(t, r)
			var ups []uploaded
			for _, task := range r.golden.Spec.PipelineSpec.Tasks {
				for _, res := range task.TaskSpec.Results {
					if name, ok := strings.CutSuffix(res.Name, "-sha256"); ok {
						ups = append(ups, uploaded{task.Name, name, results[task.Name][res.Name]})
					}
				}
			}
			if len(ups) == 0 {
				t.Fatal("no task uploads anything")
			}
			run := string(done.UID)
			objects := s.objects(t, run+"/")
			checkUploads(t, objects, run, ups, func(task string) string { return pods[task] }, s)
			checkTektonReads(t, r, pods, objects)
			t.Logf("%s: Succeeded in %s; %d uploads, %d objects checked", name,
				done.Status.CompletionTime.Sub(done.Status.StartTime.Time), len(ups), len(objects))
		})
	}
}

// taskResults are the results of each TaskRun of the run, by its
// pipeline task's name.
func taskResults(t *testing.T, r *tektonRun) map[string]map[string]string {
	t.Helper()
	var list tektonv1.TaskRunList
	out := r.c.must(t, "", "-n", r.ns, "get", "taskruns", "-l", "tekton.dev/pipelineRun="+r.pr.Name, "-o", "json")
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatal(err)
	}
	got := map[string]map[string]string{}
	for _, tr := range list.Items {
		task := tr.Labels["tekton.dev/pipelineTask"]
		got[task] = map[string]string{}
		for _, res := range tr.Status.Results {
			got[task][res.Name] = res.Value.StringVal
			if res.Value.Type == tektonv1.ParamTypeObject {
				// An object result, as JSON (its keys sorted).
				data, err := json.Marshal(res.Value.ObjectVal)
				if err != nil {
					t.Fatal(err)
				}
				got[task][res.Name] = string(data)
			}
		}
	}
	return got
}

// checkTektonReads checks that every input each task's step read holds
// bytes that the bucket or the seeded data holds.
func checkTektonReads(t *testing.T, r *tektonRun, pods map[string]string, objects map[string]string) {
	t.Helper()
	want := map[string]bool{}
	for _, text := range seeded {
		want[sha256Hex([]byte(text))] = true
	}
	for _, sum := range objects {
		want[sum] = true
	}
	for _, task := range r.golden.Spec.PipelineSpec.Tasks {
		if helperTask(task.Name) {
			continue
		}
		rec := logRecord(t, r.realRun, pods[task.Name], "step-main")
		read := 0
		for path, files := range rec.Inputs {
			for file, c := range files {
				if !want[c["sha256"]] {
					t.Errorf("task %s read %s (under %s), which neither the bucket nor the seeded data holds", task.Name, file, path)
				}
				read++
			}
		}
		if read == 0 {
			t.Errorf("task %s read no input file: %v", task.Name, rec.Argv)
		}
	}
}
