//go:build e2e

package e2e

import (
	"encoding/json"
	"maps"
	"path/filepath"
	"regexp"
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

// TestE2EMPIOnRealNode runs resnet50-multinode's Argo workflow on the real
// node: Argo's executor creates the MPIJob, mpi-operator's controller
// (v2beta1, OpenMPI) starts the workers, whose sshd (the compiled
// workerCommand, as uid 1000) takes the launcher's ssh, and the launcher
// runs the compiled mpirun, which reaches the workers by the names in
// mpi-operator's hostfile (through the cluster's DNS) and starts one rank
// on each. Each rank is the image's recorder, which joins an allreduce
// (mpi4py) and records what it received. The test asserts that every rank
// ran, each on its own worker, that the allreduce summed all of them, and
// that each rank got the step's argv, every env value of the launcher's
// container (a rank runs under sshd, so only what mpirun's -x passes
// reaches it), uid, gid and fsGroup.
func TestE2EMPIOnRealNode(t *testing.T) {
	c := e2eCluster(t)
	t.Parallel()
	const example = "resnet50-multinode"
	r := c.realRunOf(t, example, "mpi")
	r.pinJobs(t)
	// A failing rank fails the run sooner than the step's 5m backoff would
	// (retries are TestE2ERealNodeRetriesThenFails's to show).
	for i := range r.wf.Spec.Templates {
		if rs := r.wf.Spec.Templates[i].RetryStrategy; rs != nil && rs.Backoff != nil {
			rs.Backoff.Duration = "1s"
		}
	}
	created := r.create(t)
	done := c.wait(t, r.ns, created, 6*time.Minute)
	if done.Status.Phase != wfv1.WorkflowSucceeded {
		t.Fatalf("phase %s: %s\n%s\n%s", done.Status.Phase, done.Status.Message, nodeSummary(done),
			c.must(t, "", "-n", r.ns, "get", "mpijobs,pods", "-o", "wide"))
	}
	checkRanks(t, r, done.Name, done.Status.FinishedAt.Sub(done.Status.StartedAt.Time),
		mpiLauncher(t, argoJobManifest(t, r.golden)))
}

// checkRanks asserts what the ranks of an MPI step recorded against the
// launcher's pod in the golden file: every rank of -np ran, each on a
// worker of its own, each summed every rank's number in the allreduce, and
// each got the step's argv, every env value of the launcher's container (a
// rank runs under sshd, so only what mpirun's -x passes reaches it), uid,
// gid and fsGroup.
func checkRanks(t *testing.T, r *realRun, run string, took time.Duration, pod corev1.PodSpec) {
	t.Helper()
	launcher := pod.Containers[0]
	np, argv := mpirunCommand(t, launcher)
	w := want{argv: argv, env: r.wantEnv(launcher.Env, func(s string) string { return s }, nil)}
	w.securityContext(pod.SecurityContext)
	for _, m := range launcher.VolumeMounts {
		if slices.ContainsFunc(pod.Volumes,
			func(v corev1.Volume) bool { return v.Name == m.Name && v.PersistentVolumeClaim != nil }) {
			w.claims = append(w.claims, m.MountPath)
		}
	}
	ranks := map[int]record{}
	hosts := map[string]int{}
	for name, rec := range r.records(t) {
		if rec.MPI == nil {
			continue
		}
		if prev, ok := ranks[rec.MPI.Rank]; ok {
			t.Errorf("rank %d recorded twice: by %s and %s", rec.MPI.Rank, prev.Pod, rec.Pod)
		}
		ranks[rec.MPI.Rank] = rec
		hosts[rec.Pod]++
		step := "rank " + strconv.Itoa(rec.MPI.Rank) + " (" + name + ")"
		if rec.MPI.Size != np || rec.MPI.Sum != np*(np-1)/2 {
			t.Errorf("%s: world of %d, allreduce sum %d; want %d ranks summing to %d", step, rec.MPI.Size, rec.MPI.Sum,
				np, np*(np-1)/2)
		}
		checkRecord(t, step, w, rec)
	}
	if len(ranks) != np {
		t.Fatalf("%d ranks recorded (%v), want -np %d", len(ranks), slices.Sorted(maps.Keys(ranks)), np)
	}
	worker := regexp.MustCompile(`-worker-[0-9]+$`)
	for host, n := range hosts {
		if !worker.MatchString(host) || n != 1 {
			t.Errorf("%d ranks on %s; want one rank on each worker pod (slotsPerWorker 1)", n, host)
		}
	}
	t.Logf("%s: Succeeded on %s in %s; %d ranks on %d workers, each summed %d in the allreduce and got argv, "+
		"%d env values, uid %d", run, realNode, took, len(ranks), len(hosts), np*(np-1)/2, len(w.env), *w.uid)
}

// mpirunCommand reads the launcher's mpirun command: the number of ranks
// (-np) and the argv each rank's program receives, the recorder standing
// in for python.
func mpirunCommand(t *testing.T, c corev1.Container) (int, []string) {
	t.Helper()
	if len(c.Command) == 0 || c.Command[0] != "mpirun" {
		t.Fatalf("launcher command %q is not mpirun", c.Command)
	}
	i := slices.Index(c.Command, "-np")
	prog := slices.Index(c.Command, "python")
	if i < 0 || prog < 0 {
		t.Fatalf("launcher command %q has no -np or no python program", c.Command)
	}
	np, err := strconv.Atoi(c.Command[i+1])
	if err != nil {
		t.Fatal(err)
	}
	return np, wantArgv(c.Command[prog:], c.Args)
}

// mpiJob is the part of an MPIJob the test reads and changes.
type mpiJob struct {
	Spec struct {
		MPIReplicaSpecs map[string]struct {
			Template corev1.PodTemplateSpec
		}
	}
}

// argoJobManifest is the MPIJob a golden workflow's step creates.
func argoJobManifest(t *testing.T, wf *wfv1.Workflow) string {
	t.Helper()
	return *argoCreated(t, wf, "MPIJob")
}

// argoCreated is the manifest of the object of kind that a workflow's
// resource step creates.
func argoCreated(t *testing.T, wf *wfv1.Workflow, kind string) *string {
	t.Helper()
	for i := range wf.Spec.Templates {
		if res := wf.Spec.Templates[i].Resource; res != nil && res.Action == "create" &&
			strings.Contains(res.Manifest, "kind: "+kind) {
			return &res.Manifest
		}
		// A job whose end Argo's conditions cannot see (a TrainJob) is
		// the MANIFEST of the container that runs the wait script.
		if c := wf.Spec.Templates[i].Container; c != nil {
			for j, e := range c.Env {
				if e.Name == "MANIFEST" && strings.Contains(e.Value, `"kind":"`+kind+`"`) {
					return &c.Env[j].Value
				}
			}
		}
	}
	t.Fatalf("no %s in the workflow", kind)
	return nil
}

// mpiLauncher is the launcher's pod in an MPIJob manifest.
func mpiLauncher(t *testing.T, manifest string) corev1.PodSpec {
	t.Helper()
	var job mpiJob
	if err := yaml.Unmarshal([]byte(manifest), &job); err != nil {
		t.Fatal(err)
	}
	spec := job.Spec.MPIReplicaSpecs["Launcher"].Template.Spec
	if len(spec.Containers) == 0 {
		t.Fatal("the MPIJob has no launcher container")
	}
	return spec
}

// pinJobs does for the pods of each MPIJob the workflow creates what
// newRealRun does for the workflow's own.
func (r *realRun) pinJobs(t *testing.T) {
	t.Helper()
	for i := range r.wf.Spec.Templates {
		if res := r.wf.Spec.Templates[i].Resource; res != nil && res.Action == "create" &&
			strings.Contains(res.Manifest, "kind: MPIJob") {
			res.Manifest = pinnedJob(t, res.Manifest, r.ns)
		}
	}
}

// pinPodSpec keeps the pods of the pod template tmpl (decoded JSON) on
// the real node, their cpu and memory shrunk, as newRealRun does for a
// workflow's own pods.
func pinPodSpec(t *testing.T, tmpl map[string]any) {
	t.Helper()
	var spec corev1.PodSpec
	data, _ := json.Marshal(tmpl["spec"])
	if err := json.Unmarshal(data, &spec); err != nil {
		t.Fatal(err)
	}
	if spec.NodeSelector == nil {
		spec.NodeSelector = map[string]string{}
	}
	spec.NodeSelector["kubernetes.io/hostname"] = realNode
	spec.Tolerations = append(spec.Tolerations,
		corev1.Toleration{Key: realNodeTaint, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule})
	for j := range spec.Containers {
		shrink(&spec.Containers[j].Resources)
	}
	data, _ = json.Marshal(spec)
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	tmpl["spec"] = m
}

// pinnedJob is an MPIJob manifest (YAML or JSON) moved to namespace ns,
// with its pods kept on the real node and their cpu and memory shrunk, as
// newRealRun does for a workflow's own pods. Nothing else changes.
func pinnedJob(t *testing.T, manifest, ns string) string {
	t.Helper()
	return editJob(t, manifest, func(job map[string]any) {
		job["metadata"].(map[string]any)["namespace"] = ns
		replicas, _ := job["spec"].(map[string]any)["mpiReplicaSpecs"].(map[string]any)
		for _, rs := range replicas {
			tmpl := rs.(map[string]any)["template"].(map[string]any)
			pinPodSpec(t, tmpl)
		}
	})
}

// tektonRunOf prepares a run of an example's Tekton golden file on the
// real node, named NAME, as realRunOf does for Argo's.
func (c *cluster) tektonRunOf(t *testing.T, example, name string) *tektonRun {
	t.Helper()
	golden := goldenDocuments(t, filepath.Join(repoRoot, "testdata", "golden", "tekton", example+".yaml"))
	docs := compileForRealNode(t, filepath.Join(repoRoot, "examples", example), "tekton", tektonImage)
	return c.newTektonRun(t, name, docs, decodePipelineRun(t, golden[len(golden)-1]))
}

// TestE2ETektonMPIOnRealNode runs resnet50-multinode's PipelineRun on the
// real node with Tekton's real controller: the step runs the compiled
// script in the base image (its kubectl image here), which creates the
// MPIJob with kubectl from inside the pod, waits on its conditions, and
// succeeds when mpi-operator says Succeeded. The ranks are checked as
// TestE2EMPIOnRealNode checks them.
func TestE2ETektonMPIOnRealNode(t *testing.T) {
	c := e2eCluster(t)
	t.Parallel()
	r := c.tektonRunOf(t, "resnet50-multinode", "mpi")
	manifest := tektonJobManifest(t, r.pr)
	*manifest = pinnedJob(t, *manifest, r.ns)
	done := r.runSucceeded(t, 6*time.Minute, "taskruns,mpijobs,pods")
	checkRanks(t, r.realRun, done.Name, done.Status.CompletionTime.Sub(done.Status.StartTime.Time),
		mpiLauncher(t, *tektonJobManifest(t, r.golden)))
}

// tektonJobManifest is the MPIJob manifest a PipelineRun's step creates:
// the value of its MANIFEST variable, which the compiled script pipes to
// kubectl create.
func tektonJobManifest(t *testing.T, pr *tektonv1.PipelineRun) *string {
	t.Helper()
	return tektonCreated(t, pr, "MPIJob")
}

// tektonCreated is the manifest of the object of kind that a
// PipelineRun's step creates, as tektonJobManifest finds the MPIJob's.
func tektonCreated(t *testing.T, pr *tektonv1.PipelineRun, kind string) *string {
	t.Helper()
	for _, task := range pr.Spec.PipelineSpec.Tasks {
		for _, step := range task.TaskSpec.Steps {
			for i, e := range step.Env {
				if e.Name == "MANIFEST" && strings.Contains(e.Value, `"kind":"`+kind+`"`) {
					return &step.Env[i].Value
				}
			}
		}
	}
	t.Fatalf("no step of the PipelineRun creates a %s", kind)
	return nil
}

// TestE2ETektonMPIStopDeletesJob cancels resnet50-multinode's PipelineRun
// on the real node while its MPIJob runs (the launcher held running):
// Tekton deletes the step's pod (keep-pod-on-cancel is false by default),
// and the MPIJob must go too, freeing its GPUs, by the compiled script's
// trap (Tekton's entrypoint forwards SIGTERM to the script's process group,
// cmd/entrypoint/runner.go; the script exits 143 and its EXIT trap deletes
// the job) and by the job's owner reference to the pod. The
// control run, with neither, must leave the MPIJob behind.
func TestE2ETektonMPIStopDeletesJob(t *testing.T) {
	c := e2eCluster(t)
	t.Parallel()
	const example = "resnet50-multinode"
	golden := goldenDocuments(t, filepath.Join(repoRoot, "testdata", "golden", "tekton", example+".yaml"))
	docs := compileForRealNode(t, filepath.Join(repoRoot, "examples", example), "tekton", tektonImage)
	for _, tc := range []struct {
		name    string
		cleanup bool
	}{{"mpi-stop", true}, {"mpi-stop-control", false}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := c.newTektonRun(t, tc.name, docs, decodePipelineRun(t, golden[len(golden)-1]))
			// What the control run leaves holds 4 of the node's GPUs.
			t.Cleanup(func() { _, _ = c.run("", "-n", r.ns, "delete", "mpijobs", "--all", "--wait=false") })
			manifest := tektonJobManifest(t, r.pr)
			*manifest = heldJob(t, pinnedJob(t, *manifest, r.ns), tc.cleanup)
			if !tc.cleanup {
				step := &r.pr.Spec.PipelineSpec.Tasks[0].TaskSpec.Steps[0]
				step.Script = strings.ReplaceAll(step.Script, "trap ", ": ")
			}
			manifestYAML, err := yaml.Marshal(r.pr)
			if err != nil {
				t.Fatal(err)
			}
			created := strings.TrimSpace(c.must(t, string(manifestYAML), "create", "-o", "name", "-f", "-"))
			jobs := func() string {
				return strings.TrimSpace(c.must(t, "", "-n", r.ns, "get", "mpijobs", "-o", "name"))
			}
			waitFor(t, 3*time.Minute, func() string {
				return c.must(t, "", "-n", r.ns, "get", "pods", "-l", "training.kubeflow.org/job-role=launcher", "-o",
					"jsonpath={.items[*].status.phase}")
			}, "Running")
			c.must(t, "", "-n", r.ns, "patch", created, "--type=merge", "-p", `{"spec":{"status":"Cancelled"}}`)
			gone := waitUntil(90*time.Second, func() bool { return jobs() == "" })
			switch {
			case tc.cleanup && !gone:
				t.Fatalf("90 s after the cancel, %s is still there", jobs())
			case !tc.cleanup && gone:
				t.Fatal("control: without the trap and the owner reference, the MPIJob went anyway")
			}
			t.Logf("%s cancelled: MPIJob deleted: %v", created, gone)
		})
	}
}

// heldJob keeps an MPIJob's launcher running (sleep), so that the job is
// still running when its step is stopped; without cleanup it also drops
// the job's owner reference to the step's pod.
func heldJob(t *testing.T, manifest string, cleanup bool) string {
	t.Helper()
	return editJob(t, manifest, func(job map[string]any) {
		if !cleanup {
			delete(job["metadata"].(map[string]any), "ownerReferences")
		}
		container := replicaContainer(job, "Launcher")
		container["command"], container["args"] = []string{"sleep", "600"}, nil
	})
}

// editJob is an MPIJob manifest (YAML or JSON) changed by edit, as JSON.
func editJob(t *testing.T, manifest string, edit func(job map[string]any)) string {
	t.Helper()
	var job map[string]any
	if err := yaml.Unmarshal([]byte(manifest), &job); err != nil {
		t.Fatal(err)
	}
	edit(job)
	out, err := json.Marshal(job)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// replicaContainer is the first container of an MPIJob's replica type.
func replicaContainer(job map[string]any, replica string) map[string]any {
	rs := job["spec"].(map[string]any)["mpiReplicaSpecs"].(map[string]any)[replica].(map[string]any)
	return rs["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
}

// waitUntil polls cond every second until it holds or timeout passes, and
// reports whether it held.
func waitUntil(timeout time.Duration, cond func() bool) bool {
	for deadline := time.Now().Add(timeout); ; time.Sleep(time.Second) {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}
