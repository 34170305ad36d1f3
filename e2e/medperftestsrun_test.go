//go:build e2e

package e2e

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	tektonv1 "github.com/tektoncd/pipeline/pkg/apis/pipeline/v1"
	corev1 "k8s.io/api/core/v1"
)

// medperfRun is one run of MedPerf's test cubes: the good pipeline
// (model-cpu), or the one whose model is model-bug, which fails on
// purpose at infer.
type medperfRun struct {
	name, model string
	bug         bool
}

var medperfRuns = []medperfRun{
	{"medperf-tests", "model-cpu/container_config_as_docker.yaml", false},
	{"medperf-bug", "model-bug", true},
}

// medperfClaim is the claim of their workspace.
const medperfClaim = "medperf"

// bugMessage is what model-bug raises.
const bugMessage = "I am a bug!"

// TestE2EArgoMedPerfTestCubes runs MedPerf's own test cubes on the real
// node with Argo (v3.7, and v4 when make e2e runs the Argo tests again),
// their data on a claim: prep-sep, model-cpu and metrics succeed, and
// what they wrote is what their code computes from the data; with
// model-bug for the model, the run fails at infer, its container having
// exited 1 with model-bug's exception after writing all but its last
// prediction, and nothing after infer runs (issue 50, point 2).
func TestE2EArgoMedPerfTestCubes(t *testing.T) {
	t.Parallel()
	c := e2eCluster(t)
	for _, run := range medperfRuns {
		t.Run(run.name, func(t *testing.T) {
			t.Parallel()
			d := newMedperfTestsData(t)
			platform := cubePlatform(t, realImage, map[string]any{"storage": map[string]any{"pvc": medperfClaim}})
			docs := compileCubes(t, "argo", medperfTestsPipeline(t, run.model), platform, medperfTestImages(t, true))
			r := c.newRealRun(t, run.name, docs, decodeWorkflow(t, docs[len(docs)-1]))
			writeFiles(t, r.volumes[medperfClaim], d.files)
			if !run.bug {
				done := r.succeed(t, 8*time.Minute)
				d.checkGood(t, "argo", r.volumes[medperfClaim])
				t.Logf("%s: Succeeded in %s", done.Name, done.Status.FinishedAt.Sub(done.Status.StartedAt.Time))
				return
			}
			done := c.wait(t, r.ns, r.create(t), 8*time.Minute)
			r.failedAt(t, done, "infer")
			d.checkBug(t, "argo", r.volumes[medperfClaim])
		})
	}
}

// failedAt checks that an Argo run failed at step: the run Failed, the
// steps before it Succeeded, step's container exited 1 with model-bug's
// exception in its log, and no step after it ran.
func (r *realRun) failedAt(t *testing.T, done *wfv1.Workflow, step string) {
	t.Helper()
	if done.Status.Phase != wfv1.WorkflowFailed {
		t.Fatalf("phase %s, want Failed at %s\n%s", done.Status.Phase, step, nodeSummary(done))
	}
	n := taskNode(done, step)
	if n == nil || n.Phase != wfv1.NodeFailed || !strings.Contains(n.Message, "exit code 1") {
		t.Fatalf("step %s: %+v, want Failed with exit code 1\n%s", step, n, nodeSummary(done))
	}
	for _, before := range []string{"prepare", "sanity-check"} {
		if b := taskNode(done, before); b == nil || b.Phase != wfv1.NodeSucceeded {
			t.Errorf("step %s did not succeed before %s failed\n%s", before, step, nodeSummary(done))
		}
	}
	after := slices.Sorted(maps.Keys(downstream(entryDAG(t, r.wf), step)))
	if !slices.Equal(after, afterInfer) {
		t.Fatalf("the steps after %s are %v, want %v", step, after, afterInfer)
	}
	for _, task := range after {
		if podsOf(done, task) > 0 {
			t.Errorf("step %s ran, after the failed %s", task, step)
		}
	}
	pod := r.pods(t)[done.Name+"."+step]
	if log := r.c.must(t, "", "-n", r.ns, "logs", pod, "-c", "main"); !strings.Contains(log, bugMessage) {
		t.Errorf("%s's log does not hold %q:\n%s", pod, bugMessage, log)
	}
	t.Logf("%s: Failed at %s (%s; its log: %q); %v did not run", done.Name, step, n.Message, bugMessage, after)
}

// TestE2ETektonMedPerfTestCubes runs MedPerf's test cubes on Tekton as
// TestE2EArgoMedPerfTestCubes does on Argo: the good pipeline succeeds,
// and model-bug's fails at infer, its step having exited 1, and the
// tasks after it skipped, with no pod.
func TestE2ETektonMedPerfTestCubes(t *testing.T) {
	t.Parallel()
	c := e2eCluster(t)
	for _, run := range medperfRuns {
		t.Run(run.name, func(t *testing.T) {
			t.Parallel()
			d := newMedperfTestsData(t)
			platform := cubePlatform(t, tektonImage, map[string]any{"storage": map[string]any{"pvc": medperfClaim}})
			docs := compileCubes(t, "tekton", medperfTestsPipeline(t, run.model), platform, medperfTestImages(t, true))
			r := c.newTektonRun(t, run.name, docs, decodePipelineRun(t, docs[len(docs)-1]))
			writeFiles(t, r.volumes[medperfClaim], d.files)
			done := r.run(t, 8*time.Minute)
			cond := done.Status.GetCondition("Succeeded")
			if !run.bug {
				if cond == nil || cond.Status != corev1.ConditionTrue {
					t.Fatalf("PipelineRun %s: %+v\n%s", done.Name, cond, c.must(t, "", "-n", r.ns, "get", "taskruns,pods"))
				}
				d.checkGood(t, "tekton", r.volumes[medperfClaim])
				t.Logf("%s: Succeeded in %s", done.Name, done.Status.CompletionTime.Sub(done.Status.StartTime.Time))
				return
			}
			r.failedAt(t, done, "infer")
			d.checkBug(t, "tekton", r.volumes[medperfClaim])
		})
	}
}

// failedAt checks that a PipelineRun failed at task as realRun.failedAt
// does: its step-main container exited 1 with model-bug's exception in
// its log, and every later task is skipped and has no pod.
func (r *tektonRun) failedAt(t *testing.T, done *tektonv1.PipelineRun, task string) {
	t.Helper()
	if cond := done.Status.GetCondition("Succeeded"); cond == nil || cond.Status != corev1.ConditionFalse {
		t.Fatalf("PipelineRun %s: %+v, want failed at %s\n%s", done.Name, cond, task,
			r.c.must(t, "", "-n", r.ns, "get", "taskruns,pods"))
	}
	pods := r.tektonPods(t)
	pod, ok := pods[task]
	if !ok {
		t.Fatalf("task %s has no pod: %v", task, pods)
	}
	exit := r.c.jsonPath(t, r.ns, "pod/"+pod,
		`{.status.containerStatuses[?(@.name=="step-main")].state.terminated.exitCode}`)
	if exit != "1" {
		t.Errorf("task %s's step exited %q, want 1", task, exit)
	}
	if log := r.c.must(t, "", "-n", r.ns, "logs", pod, "-c", "step-main"); !strings.Contains(log, bugMessage) {
		t.Errorf("%s's log does not hold %q:\n%s", pod, bugMessage, log)
	}
	skipped := map[string]bool{}
	for _, s := range done.Status.SkippedTasks {
		skipped[s.Name] = true
	}
	for _, later := range afterInfer {
		if _, ran := pods[later]; ran || !skipped[later] {
			t.Errorf("task %s: pod %q, skipped %v; want skipped, with no pod, after the failed %s", later, pods[later],
				skipped[later], task)
		}
	}
	t.Logf("%s: failed at %s (step-main exit code %s; its log: %q); %v skipped, no pod", done.Name, task, exit,
		bugMessage, afterInfer)
}

// TestE2EJobMedPerfTestCubes runs MedPerf's test cubes as a Job per step
// (--backend job --step NAME), in the pipeline's order, on a claim: the
// good pipeline's Jobs complete with what their code computes; with
// model-bug, infer's Job fails after backoffLimit + 1 pods, each of whose
// containers exited 1 with model-bug's exception, and the steps after it
// are not started (the one who runs a Job per step stops at a Job that
// failed; the test does as they would).
func TestE2EJobMedPerfTestCubes(t *testing.T) {
	t.Parallel()
	c := e2eCluster(t)
	for _, run := range medperfRuns {
		t.Run(run.name, func(t *testing.T) {
			t.Parallel()
			d := newMedperfTestsData(t)
			pipeline := medperfTestsPipeline(t, run.model)
			platform := cubePlatform(t, realImage, map[string]any{"storage": map[string]any{"pvc": medperfClaim}})
			r := c.newJobRun(t, "e2e-job-"+run.name, medperfClaim)
			writeFiles(t, r.volumes[medperfClaim], d.files)
			images := medperfTestImages(t, true)
			for _, step := range medperfTestSteps {
				docs := compileCubes(t, "job", pipeline, platform, images, "--step", step)
				if run.bug && step == "infer" {
					r.jobFails(t, docs, step)
					d.checkBug(t, "job", r.volumes[medperfClaim])
					return
				}
				r.runStepJob(t, docs, step, 6*time.Minute)
			}
			d.checkGood(t, "job", r.volumes[medperfClaim])
			t.Logf("Jobs %s: each completed", strings.Join(medperfTestSteps, ", "))
		})
	}
}

// jobFails runs a step's Job and checks that it fails: every pod's
// container exited 1, with model-bug's exception in its log.
func (r *realRun) jobFails(t *testing.T, docs []string, step string) {
	t.Helper()
	for _, doc := range docs[:len(docs)-1] {
		r.c.ensure(t, inNamespace(t, doc, r.ns))
	}
	startJob(t, r.c, r.ns, step, docs[len(docs)-1])
	waitFor(t, 8*time.Minute, func() string {
		return r.c.jsonPath(t, r.ns, "job/"+step, `{.status.conditions[?(@.type=="Failed")].status}`)
	}, "True")
	limit := r.c.jsonPath(t, r.ns, "job/"+step, "{.spec.backoffLimit}")
	out := r.c.must(t, "", "-n", r.ns, "get", "pods", "-l", "batch.kubernetes.io/job-name="+step, "-o",
		`jsonpath={range .items[*]}{.metadata.name}=`+
			`{.status.containerStatuses[?(@.name=="mlcube-container")].state.terminated.exitCode} {end}`)
	pods := strings.Fields(out)
	for _, p := range pods {
		name, exit, _ := strings.Cut(p, "=")
		if exit != "1" {
			t.Errorf("pod %s of Job %s exited %q, want 1", name, step, exit)
		}
		if log := r.c.must(t, "", "-n", r.ns, "logs", name, "-c", "mlcube-container"); !strings.Contains(log, bugMessage) {
			t.Errorf("%s's log does not hold %q:\n%s", name, bugMessage, log)
		}
	}
	if n, err := strconv.Atoi(limit); err != nil || len(pods) != n+1 {
		t.Errorf("Job %s failed with %d pods, want backoffLimit (%q) + 1", step, len(pods), limit)
	}
	t.Logf("Job %s: Failed after %d pods (backoffLimit %s), each exit code 1 with %q; %v not started", step, len(pods),
		limit, bugMessage, afterInfer)
}
