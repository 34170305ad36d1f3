//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	tektonv1 "github.com/tektoncd/pipeline/pkg/apis/pipeline/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// stepTime is where one step's time went, in seconds, from the
// engine's and the kubelet's timestamps (whole seconds, as the API gives
// them): wall from the engine's start of the step to its end, run while
// the step's own container ran; the rest is outside it, split into the
// pod's creation to its scheduling, the init containers' run (Argo's
// init, the compiler's folders, fetch and verify; Tekton's prepare and
// place-scripts), the rest before the container started, and the time
// after it ended (upload, Argo's wait container, the engine noticing).
type stepTime struct {
	wall, run, out, schedule, inits, before, after float64
}

// overheadCase is one measured run: an engine, what it runs, and how to
// run it once, returning each step's times by step name.
type overheadCase struct {
	engine, name, what string
	run                func(t *testing.T, i int) map[string]stepTime
}

// TestE2EStepOverhead measures what the compiler's manifests cost each
// step outside its container, against a bare run of the same image on the
// same node by the same engine: a one-container Workflow, a one-step
// TaskRun, a bare Job (issue 50, point 4). It runs only when
// E2E_OVERHEAD_RUNS gives a number of runs (make e2e-overhead); each case
// runs that many times, one at a time, and the table holds the medians.
// It asserts nothing about time: it reports, as make bench does.
func TestE2EStepOverhead(t *testing.T) {
	n, err := strconv.Atoi(os.Getenv("E2E_OVERHEAD_RUNS"))
	if err != nil || n < 1 {
		t.Skip("set E2E_OVERHEAD_RUNS to a number of runs (make e2e-overhead) to measure the steps' overhead")
	}
	c, s := e2eCluster(t), e2eObjectStore(t)
	seedBucket(t, s)
	var table []string
	for _, oc := range overheadCases(c, s) {
		byStep := map[string][]stepTime{}
		for i := range n {
			for step, st := range oc.run(t, i) {
				byStep[step] = append(byStep[step], st)
			}
		}
		for _, step := range slices.Sorted(maps.Keys(byStep)) {
			m := medianStep(byStep[step])
			table = append(table, fmt.Sprintf("| %s | %s (%s) | %s | %d | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f |",
				oc.engine, oc.name, oc.what, step, len(byStep[step]), m.wall, m.run, m.out, m.schedule, m.inits, m.before, m.after))
		}
	}
	t.Logf("the medians of %d runs, in seconds:\n"+
		"| engine | run | step | runs | wall | in its container | outside | to scheduled | init containers | then to the "+
		"container | after it |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n%s",
		n, strings.Join(table, "\n"))
}

// overheadCases are the runs measured: on each engine the bare run, and
// steps on a claim (mnist), in the bucket with an s3:// input
// (bucket-pipeline's prepare, mnist-bucket's download) and with inputs
// the run uploaded (bucket-pipeline's train and evaluate).
func overheadCases(c *cluster, s *objectStore) []overheadCase {
	var out []overheadCase
	out = append(out, overheadCase{"argo", "bare", "one container", func(t *testing.T, i int) map[string]stepTime {
		return argoStepTimes(t, c, c.newRealRun(t, "ovh-bare", []string{bareWorkflow}, nil))
	}})
	for _, ex := range []struct{ name, what string }{{"mnist", "claim"}, {"bucket-pipeline", "bucket"},
		{"mnist-bucket", "bucket, s3:// inputs"}} {
		out = append(out, overheadCase{"argo", ex.name, ex.what, func(t *testing.T, i int) map[string]stepTime {
			docs := compileForRealNode(t, filepath.Join(repoRoot, "examples", ex.name), "argo", realImage)
			r := c.newRealRun(t, "ovh-"+ex.name, docs, decodeWorkflow(t, docs[len(docs)-1]))
			s.credentials(t, c, r.ns)
			pinArtifactGC(r.wf)
			return argoStepTimes(t, c, r)
		}})
	}
	out = append(out, overheadCase{"tekton", "bare", "one step", func(t *testing.T, i int) map[string]stepTime {
		return bareTaskRunTimes(t, c)
	}})
	for _, ex := range []struct{ name, what string }{{"mnist", "claim"}, {"bucket-pipeline", "bucket"},
		{"mnist-bucket", "bucket, s3:// inputs"}} {
		out = append(out, overheadCase{"tekton", ex.name, ex.what, func(t *testing.T, i int) map[string]stepTime {
			docs := compileForRealNode(t, filepath.Join(repoRoot, "examples", ex.name), "tekton", tektonImage)
			r := c.newTektonRun(t, "ovh-"+ex.name, docs, decodePipelineRun(t, docs[len(docs)-1]))
			s.credentials(t, c, r.ns)
			return tektonStepTimes(t, r, r.run(t, 8*time.Minute))
		}})
	}
	out = append(out, overheadCase{"job", "bare", "one container", func(t *testing.T, i int) map[string]stepTime {
		c.namespace(t, "e2e-job-ovh-bare")
		return map[string]stepTime{"main": jobStepTime(t, c, "e2e-job-ovh-bare", "bare", bareJob, "main")}
	}})
	for _, ex := range []struct{ name, task, what string }{{"mnist", "download", "claim"},
		{"bucket-pipeline", "prepare", "bucket, s3:// input"}} {
		out = append(out, overheadCase{"job", ex.name, ex.what, func(t *testing.T, i int) map[string]stepTime {
			return map[string]stepTime{ex.task: jobExampleTime(t, c, s, ex.name, ex.task)}
		}})
	}
	return out
}

// bareWorkflow, bareTaskRun and bareJob run the suite's image with a
// command of its own that does nothing, in one container, with nothing
// else: what each engine costs a step by itself.
const (
	bareWorkflow = `apiVersion: argoproj.io/v1alpha1
kind: Workflow
metadata: {name: ovh-bare}
spec:
  entrypoint: main
  templates:
  - name: main
    container: {image: "` + realImage + `", imagePullPolicy: Never, command: [sh, -c, "true"]}
`
	bareTaskRun = `apiVersion: tekton.dev/v1
kind: TaskRun
metadata: {name: ovh-bare}
spec:
  podTemplate:
    nodeSelector: {kubernetes.io/hostname: "` + realNode + `"}
    tolerations: [{key: "` + realNodeTaint + `", operator: Exists}]
  taskSpec:
    steps:
    - {name: main, image: "` + tektonImage + `", command: [sh, -c, "true"]}
`
	bareJob = `apiVersion: batch/v1
kind: Job
metadata: {name: bare}
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: main, image: "` + realImage + `", imagePullPolicy: Never, command: [sh, -c, "true"]}
`
)

// argoStepTimes runs r's workflow to Succeeded and times each of its
// pods' steps: the node's start and end, the container that runs the
// step (main, or run in a container set).
func argoStepTimes(t *testing.T, c *cluster, r *realRun) map[string]stepTime {
	t.Helper()
	done := r.succeed(t, 8*time.Minute)
	pods := r.pods(t)
	out := map[string]stepTime{}
	for _, n := range done.Status.Nodes {
		if n.Type != wfv1.NodeTypePod || strings.Contains(n.Name, ".onExit") {
			continue
		}
		p := getPod(t, c, r.ns, pods[n.Name])
		user := "main"
		if slices.ContainsFunc(p.Spec.Containers, func(ctr corev1.Container) bool { return ctr.Name == "run" }) {
			user = "run"
		}
		out[strings.TrimPrefix(n.Name, done.Name+".")] = podTimes(t, p, n.StartedAt.Time, n.FinishedAt.Time, user)
	}
	return out
}

// tektonStepTimes times each TaskRun of a finished PipelineRun: the
// TaskRun's start and completion, its step-main container.
func tektonStepTimes(t *testing.T, r *tektonRun, done *tektonv1.PipelineRun) map[string]stepTime {
	t.Helper()
	if cond := done.Status.GetCondition("Succeeded"); cond == nil || cond.Status != corev1.ConditionTrue {
		t.Fatalf("PipelineRun %s: %+v", done.Name, cond)
	}
	out := map[string]stepTime{}
	for _, ref := range done.Status.ChildReferences {
		out[ref.PipelineTaskName] = taskRunTimes(t, r.c, r.ns, ref.Name)
	}
	return out
}

// bareTaskRunTimes runs bareTaskRun to the end and times its step.
func bareTaskRunTimes(t *testing.T, c *cluster) map[string]stepTime {
	t.Helper()
	ns := "e2e-tekton-ovh-bare"
	c.namespace(t, ns)
	c.must(t, "", "-n", ns, "delete", "taskrun", "ovh-bare", "--ignore-not-found", "--wait", "--cascade=foreground")
	c.must(t, bareTaskRun, "-n", ns, "create", "-f", "-")
	waitFor(t, 5*time.Minute, func() string {
		return c.jsonPath(t, ns, "taskrun/ovh-bare", `{.status.conditions[?(@.type=="Succeeded")].status}`)
	}, "True")
	return map[string]stepTime{"main": taskRunTimes(t, c, ns, "ovh-bare")}
}

// taskRunTimes times TaskRun name in ns, finished.
func taskRunTimes(t *testing.T, c *cluster, ns, name string) stepTime {
	t.Helper()
	var tr tektonv1.TaskRun
	if err := json.Unmarshal([]byte(c.must(t, "", "-n", ns, "get", "taskrun", name, "-o", "json")), &tr); err != nil {
		t.Fatal(err)
	}
	p := getPod(t, c, ns, tr.Status.PodName)
	return podTimes(t, p, tr.Status.StartTime.Time, tr.Status.CompletionTime.Time, "step-main")
}

// jobExampleTime compiles task of example name as a Job (on a claim or
// in the bucket), runs it, and times it.
func jobExampleTime(t *testing.T, c *cluster, s *objectStore, name, task string) stepTime {
	t.Helper()
	dir := filepath.Join(repoRoot, "examples", name)
	args := []string{"mlcube-compile", "--backend", "job", "--mlcube", dir, "--task", task}
	if p := filepath.Join(dir, "platform.yaml"); fileExists(p) {
		args = append(args, "--platform", realNodePlatform(t, p, realImage))
	} else {
		args = append(args, "--platform", realNodePlatform(t, "", realImage))
	}
	out, stderr, code := compileArgs(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	ns := "e2e-job-ovh-" + name
	r := &realRun{c: c, ns: ns, volumes: map[string]string{}}
	c.namespace(t, ns)
	s.credentials(t, c, ns)
	// The last run's Job holds the claim: it goes first.
	c.must(t, "", "-n", ns, "delete", "job", "ovh", "--ignore-not-found", "--wait", "--cascade=foreground")
	var job struct {
		Spec struct {
			Template corev1.PodTemplateSpec `json:"template"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal([]byte(out), &job); err != nil {
		t.Fatal(err)
	}
	for _, v := range job.Spec.Template.Spec.Volumes {
		if v.PersistentVolumeClaim != nil {
			r.claim(t, v.PersistentVolumeClaim.ClaimName,
				corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany}}, claimMake)
		}
	}
	return jobStepTime(t, c, ns, "ovh", out, "mlcube-container")
}

// jobStepTime runs the Job of manifest as name in ns and times it: its
// start and completion, container user.
func jobStepTime(t *testing.T, c *cluster, ns, name, manifest, user string) stepTime {
	t.Helper()
	runJob(t, c, ns, name, manifest, 6*time.Minute)
	var job struct {
		Status struct {
			StartTime, CompletionTime time.Time
		} `json:"status"`
	}
	if err := json.Unmarshal([]byte(c.must(t, "", "-n", ns, "get", "job", name, "-o", "json")), &job); err != nil {
		t.Fatal(err)
	}
	pod := strings.TrimPrefix(strings.TrimSpace(c.must(t, "", "-n", ns, "get", "pods", "-l",
		"batch.kubernetes.io/job-name="+name, "-o", "name")), "pod/")
	return podTimes(t, getPod(t, c, ns, pod), job.Status.StartTime, job.Status.CompletionTime, user)
}

// getPod reads pod name in ns.
func getPod(t *testing.T, c *cluster, ns, name string) *corev1.Pod {
	t.Helper()
	var p corev1.Pod
	if err := json.Unmarshal([]byte(c.must(t, "", "-n", ns, "get", "pod", name, "-o", "json")), &p); err != nil {
		t.Fatal(err)
	}
	return &p
}

// podTimes splits a step that the engine started at start and ended at
// end between its pod's phases and its container user, which is an init
// container where the step's outputs are uploaded after it (a Job's).
func podTimes(t *testing.T, p *corev1.Pod, start, end time.Time, user string) stepTime {
	t.Helper()
	st := stepTime{wall: end.Sub(start).Seconds()}
	for _, cond := range p.Status.Conditions {
		if cond.Type == corev1.PodScheduled {
			st.schedule = cond.LastTransitionTime.Sub(p.CreationTimestamp.Time).Seconds()
		}
	}
	var from, to time.Time
	for _, s := range append(p.Status.InitContainerStatuses, p.Status.ContainerStatuses...) {
		if s.Name == user && s.State.Terminated != nil {
			from, to = s.State.Terminated.StartedAt.Time, s.State.Terminated.FinishedAt.Time
		}
	}
	if from.IsZero() {
		t.Fatalf("pod %s: no container %s that finished", p.Name, user)
	}
	for _, s := range p.Status.InitContainerStatuses {
		if ran := s.State.Terminated; ran != nil && s.Name != user && !ran.FinishedAt.After(from) {
			st.inits += ran.FinishedAt.Sub(ran.StartedAt.Time).Seconds()
		}
	}
	st.run = to.Sub(from).Seconds()
	st.out = st.wall - st.run
	st.before = from.Sub(start).Seconds() - st.schedule - st.inits
	st.after = end.Sub(to).Seconds()
	return st
}

// medianStep is the median of each of the times, taken one by one.
func medianStep(all []stepTime) stepTime {
	med := func(f func(stepTime) float64) float64 {
		v := make([]float64, len(all))
		for i, s := range all {
			v[i] = f(s)
		}
		slices.Sort(v)
		if len(v)%2 == 1 {
			return v[len(v)/2]
		}
		return (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	return stepTime{
		wall: med(func(s stepTime) float64 { return s.wall }), run: med(func(s stepTime) float64 { return s.run }),
		out:      med(func(s stepTime) float64 { return s.out }),
		schedule: med(func(s stepTime) float64 { return s.schedule }),
		inits:    med(func(s stepTime) float64 { return s.inits }),
		before:   med(func(s stepTime) float64 { return s.before }),
		after:    med(func(s stepTime) float64 { return s.after }),
	}
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }
