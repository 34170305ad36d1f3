//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// Kubeflow Trainer and JobSet (scripts/e2e/trainer.sh) run TrainJobs. A
// TrainJob names the ClusterTrainingRuntime torch-distributed, whose one
// replicated job, node, runs one pod per trainer node with one container,
// node; Trainer's torch plugin
// (pkg/runtime/framework/plugins/torch/torch.go in Trainer v2.3.0) sets
// that container's PET_NNODES, PET_NPROC_PER_NODE, PET_NODE_RANK (the
// pod's completion index), PET_MASTER_ADDR (<trainjob>-node-0-0.<trainjob>,
// the first pod's name in JobSet's headless Service) and PET_MASTER_PORT
// (29500), which torchrun reads as its --nnodes, --nproc_per_node,
// --node_rank, --master_addr and --master_port. A TrainJob's own changes
// to the runtime's pods go in spec.runtimePatches (v2.3.0 has no
// podTemplateOverrides), one entry per manager, a domain-prefixed name:
// volumes, volume mounts, node selector, tolerations; not the node
// container's env, which is spec.trainer.env.
const (
	torchRuntime = "torch-distributed"
	// trainerNode names the runtime's replicated job and its container.
	trainerNode = "node"
	// stepPatch is the manager of the runtime patch a hand-written
	// TrainJob carries, standing in for the compiler's.
	stepPatch = "mlcube-compile.io/step"
	// realNodePatch is the manager of the runtime patch that keeps a
	// TrainJob's pods on the real node.
	realNodePatch = "e2e.mlcube-compile.io/real-node"
	// workspace is where a hand-written TrainJob mounts its claim.
	workspace = "/workspace"
)

// torchRanks is what a rank under torchrun recorded
// (scripts/e2e/image/record): its number, the world's size, the sum of
// every rank's number that gloo's all_reduce gave it, and its number on
// its node.
type torchRanks struct {
	Rank, Size, Sum int
	LocalRank       int `json:"local_rank"`
}

// handTrainJob is a TrainJob as the compiler's torch step is to write
// one: the runtime torch-distributed, nodes pods of procs ranks each, the
// image's recorder under torchrun, and a runtime patch of the step's own
// (manager stepPatch) with the claim mounted at /workspace.
type handTrainJob struct {
	name         string
	nodes, procs int
	command      []string
	env          map[string]string
	claim        string // mounted at workspace, if set
}

func (h handTrainJob) manifest(t *testing.T) string {
	t.Helper()
	trainer := map[string]any{
		"image":          realImage,
		"command":        h.command,
		"numNodes":       h.nodes,
		"numProcPerNode": h.procs,
	}
	var env []map[string]string
	for _, k := range slices.Sorted(maps.Keys(h.env)) {
		env = append(env, map[string]string{"name": k, "value": h.env[k]})
	}
	if env != nil {
		trainer["env"] = env
	}
	pod := map[string]any{}
	if h.claim != "" {
		pod["volumes"] = []any{map[string]any{"name": "workspace",
			"persistentVolumeClaim": map[string]any{"claimName": h.claim}}}
		pod["containers"] = []any{map[string]any{"name": trainerNode,
			"volumeMounts": []any{map[string]any{"name": "workspace", "mountPath": workspace}}}}
	}
	job := map[string]any{
		"apiVersion": "trainer.kubeflow.org/v1alpha1",
		"kind":       "TrainJob",
		"metadata":   map[string]any{"name": h.name},
		"spec": map[string]any{
			"runtimeRef": map[string]any{"name": torchRuntime},
			"trainer":    trainer,
			"runtimePatches": []any{map[string]any{
				"manager": stepPatch,
				"trainingRuntimeSpec": map[string]any{"template": map[string]any{"spec": map[string]any{
					"replicatedJobs": []any{map[string]any{"name": trainerNode, "template": map[string]any{"spec": map[string]any{
						"template": map[string]any{"spec": pod},
					}}}},
				}}},
			}},
		},
	}
	out, err := yaml.Marshal(job)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// holdPath is the path, in handTrainJob's manifest, to the pod template
// of the trainer nodes (queued puts the hold annotation there).
var holdPath = []string{"spec", "runtimePatches", "0", "trainingRuntimeSpec", "template", "spec", "replicatedJobs", "0",
	"template", "spec", "template"}

// trainJobOnRealNode is a TrainJob manifest (hand-written or compiled)
// moved to namespace ns, with one more runtime patch (manager
// realNodePatch) that keeps its trainer nodes on the real node, as
// newRealRun does for a workflow's pods. Nothing else changes.
func trainJobOnRealNode(t *testing.T, manifest, ns string) string {
	t.Helper()
	return editJob(t, inNamespace(t, manifest, ns), func(job map[string]any) {
		spec := job["spec"].(map[string]any)
		// A compiled step asks what a GPU node holds (torch-ddp: 8 cpu,
		// 32Gi per node), which the 2-core real node would never fit.
		if tr, ok := spec["trainer"].(map[string]any); ok && tr["resourcesPerNode"] != nil {
			var res corev1.ResourceRequirements
			data, _ := json.Marshal(tr["resourcesPerNode"])
			if err := json.Unmarshal(data, &res); err != nil {
				t.Fatal(err)
			}
			shrink(&res)
			tr["resourcesPerNode"] = res
		}
		patches, _ := spec["runtimePatches"].([]any)
		spec["runtimePatches"] = append(patches, map[string]any{
			"manager": realNodePatch,
			"trainingRuntimeSpec": map[string]any{"template": map[string]any{"spec": map[string]any{
				"replicatedJobs": []any{map[string]any{"name": trainerNode, "template": map[string]any{"spec": map[string]any{
					"template": map[string]any{"spec": map[string]any{
						"nodeSelector": map[string]string{"kubernetes.io/hostname": realNode},
						"tolerations":  []any{map[string]string{"key": realNodeTaint, "operator": "Exists", "effect": "NoSchedule"}},
					}},
				}}}},
			}}},
		})
	})
}

// newTrainRun prepares namespace e2e-trainjob-NAME for a TrainJob named
// NAME on the real node: an earlier run's TrainJob goes, and the claim
// workspace gets a local volume (records are read from it).
func (c *cluster) newTrainRun(t *testing.T, name string) *realRun {
	t.Helper()
	r := &realRun{c: c, ns: "e2e-trainjob-" + name, secrets: map[string]string{}, volumes: map[string]string{},
		params: map[string]string{}}
	c.namespace(t, r.ns)
	c.must(t, "", "-n", r.ns, "delete", "trainjobs.trainer.kubeflow.org", name, "--ignore-not-found", "--wait")
	r.claim(t, "workspace",
		corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany}}, claimMake)
	return r
}

// runTrainJob creates a TrainJob and waits until it is Complete, failing
// the test if it fails or times out; it returns how long it took.
func (c *cluster) runTrainJob(t *testing.T, ns, name, manifest string, timeout time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	c.must(t, manifest, "create", "-f", "-")
	var state string
	waitUntil(timeout, func() bool {
		state = c.trainJobState(t, ns, name)
		return state != ""
	})
	if state != "Complete" {
		t.Fatalf("TrainJob %s: %q after %s\n%s\n%s", name, state, time.Since(start).Round(time.Second),
			c.must(t, "", "-n", ns, "get", "trainjobs,jobsets,jobs,pods", "-o", "wide"), c.podLogs(t, ns, name))
	}
	return time.Since(start)
}

// trainJobState is Complete or Failed once a TrainJob has ended, else "".
func (c *cluster) trainJobState(t *testing.T, ns, name string) string {
	t.Helper()
	for _, cond := range []string{"Complete", "Failed"} {
		if c.jsonPath(t, ns, "trainjobs.trainer.kubeflow.org/"+name,
			`{.status.conditions[?(@.type=="`+cond+`")].status}`) == "True" {
			return cond
		}
	}
	return ""
}

// podLogs is the tail of the logs of a TrainJob's pods, for a failure.
func (c *cluster) podLogs(t *testing.T, ns, name string) string {
	t.Helper()
	out, err := c.run("", "-n", ns, "logs", "-l", "jobset.sigs.k8s.io/jobset-name="+name, "--tail=30", "--prefix",
		"--all-containers")
	if err != nil {
		return err.Error()
	}
	return out
}

// TestE2ETrainJobTorchOnRealNode runs a TrainJob of two trainer nodes of
// two ranks each on the real node: Trainer makes a JobSet of it, JobSet
// a Job of two pods, and in each pod Debian's torchrun (from the
// runtime's PET_ variables) starts two ranks of the image's recorder,
// which join one gloo all_reduce across both pods. The TrainJob must
// Complete, and every rank must have recorded its number, a world of
// four, the sum of all four numbers, its node's env, and the argv of the
// command; each pod is one trainer node on the real node, and rank 0
// alone wrote the output.
func TestE2ETrainJobTorchOnRealNode(t *testing.T) {
	c := e2eCluster(t)
	t.Parallel()
	const name, nodes, procs = "torch", 2, 2
	r := c.newTrainRun(t, name)
	out := workspace + "/model"
	job := handTrainJob{name: name, nodes: nodes, procs: procs, claim: "workspace",
		command: []string{"torchrun", "train.py", "--model=" + out}}
	took := c.runTrainJob(t, r.ns, name, trainJobOnRealNode(t, job.manifest(t), r.ns), 5*time.Minute)
	w := want{argv: []string{"/usr/local/bin/python", "-u", "train.py", "--model=" + out}, env: map[string]string{
		"PET_NNODES": strconv.Itoa(nodes), "PET_NPROC_PER_NODE": strconv.Itoa(procs),
		"PET_MASTER_ADDR": name + "-node-0-0." + name, "PET_MASTER_PORT": "29500",
		"WORLD_SIZE": strconv.Itoa(nodes * procs),
	}}
	hosts := checkTorchRanks(t, r, w, nodes, procs)
	ran := c.must(t, "", "-n", r.ns, "get", "pods", "-l", "jobset.sigs.k8s.io/jobset-name="+name, "-o",
		"jsonpath={.items[*].spec.nodeName}")
	if got := strings.Fields(ran); len(got) != nodes ||
		slices.ContainsFunc(got, func(n string) bool { return n != realNode }) {
		t.Errorf("the trainer nodes' pods ran on %q, want %d pods on %s", got, nodes, realNode)
	}
	data, err := os.ReadFile(filepath.Join(r.volumes["workspace"], "model", "written-by"))
	if err != nil || strings.TrimSpace(string(data)) != "written by "+name+"-node-0-0" {
		t.Errorf("the output: %q, %v; want it written by rank 0 on the first node", data, err)
	}
	t.Logf("TrainJob %s: Complete on %s in %s; %d ranks on %d pods (%v), each summed %d in gloo's all_reduce",
		name, realNode, took.Round(time.Second), nodes*procs, len(hosts), hosts, nodes*procs*(nodes*procs-1)/2)
}

// checkTorchRanks asserts what the ranks of a TrainJob recorded: nodes ×
// procs ranks, each once, each in a world of that size with the sum of
// every rank's number; procs of them on each of nodes pods, with local
// ranks 0 to procs-1, the pod of node i (JobSet names its host
// <trainjob>-node-0-i) holding ranks i×procs to i×procs+procs-1 with
// PET_NODE_RANK i; each with w's argv and env. It returns the ranks by
// pod's host name.
func checkTorchRanks(t *testing.T, r *realRun, w want, nodes, procs int) map[string][]int {
	t.Helper()
	world := nodes * procs
	byRank := map[int]string{}
	byPod := map[string][]int{}
	index := regexp.MustCompile(`^.+-` + trainerNode + `-0-([0-9]+)$`)
	for file, rec := range r.records(t) {
		tr := rec.Torch
		if tr == nil {
			continue
		}
		step := fmt.Sprintf("rank %d (%s)", tr.Rank, file)
		if prev, ok := byRank[tr.Rank]; ok {
			t.Errorf("%s: rank recorded twice, by %s too", step, prev)
		}
		byRank[tr.Rank] = rec.Pod
		byPod[rec.Pod] = append(byPod[rec.Pod], tr.Rank)
		if tr.Size != world || tr.Sum != world*(world-1)/2 {
			t.Errorf("%s: world of %d, all_reduce sum %d; want %d ranks summing to %d", step, tr.Size, tr.Sum, world,
				world*(world-1)/2)
		}
		m := index.FindStringSubmatch(rec.Pod)
		if m == nil {
			t.Errorf("%s: pod %s is not a trainer node's", step, rec.Pod)
			continue
		}
		node, _ := strconv.Atoi(m[1])
		if tr.Rank/procs != node || tr.Rank%procs != tr.LocalRank {
			t.Errorf("%s: local rank %d on node %d; want rank = node × %d + local rank", step, tr.LocalRank, node, procs)
		}
		pw := w
		pw.env = maps.Clone(w.env)
		pw.env["PET_NODE_RANK"], pw.env["RANK"], pw.env["LOCAL_RANK"] = m[1], strconv.Itoa(tr.Rank),
			strconv.Itoa(tr.LocalRank)
		checkRecord(t, step, pw, rec)
	}
	if len(byRank) != world {
		t.Fatalf("%d ranks recorded (%v), want %d", len(byRank), slices.Sorted(maps.Keys(byRank)), world)
	}
	for pod, ranks := range byPod {
		if len(ranks) != procs {
			t.Errorf("%d ranks on %s; want %d on each trainer node", len(ranks), pod, procs)
		}
	}
	if len(byPod) != nodes {
		t.Errorf("ranks on %d pods, want %d", len(byPod), nodes)
	}
	return byPod
}

// TestE2ETrainJobDeleteDeletesJobSet deletes a TrainJob while its trainer
// nodes run (each rank sleeps): its JobSet, the JobSet's Jobs and their
// pods must go with it (their owner references, and the cluster's garbage
// collector), freeing the node.
func TestE2ETrainJobDeleteDeletesJobSet(t *testing.T) {
	c := e2eCluster(t)
	t.Parallel()
	const name = "torch-delete"
	r := c.newTrainRun(t, name)
	job := handTrainJob{name: name, nodes: 2, procs: 1, claim: "workspace",
		command: []string{"torchrun", "train.py"}, env: map[string]string{"MLCUBE_E2E_SLEEP": "600"}}
	c.must(t, trainJobOnRealNode(t, job.manifest(t), r.ns), "create", "-f", "-")
	selector := "jobset.sigs.k8s.io/jobset-name=" + name
	running := func() string {
		return c.jsonPath(t, r.ns, "pods", "{.items[*].status.phase}")
	}
	waitFor(t, 3*time.Minute, func() string {
		out, _ := c.run("", "-n", r.ns, "get", "pods", "-l", selector, "--field-selector=status.phase=Running", "-o", "name")
		return strconv.Itoa(len(strings.Fields(out)))
	}, "2")
	jobset := c.jsonPath(t, r.ns, "jobsets.jobset.x-k8s.io/"+name,
		"{.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name}")
	deleted := time.Now()
	c.must(t, "", "-n", r.ns, "delete", "trainjobs.trainer.kubeflow.org", name, "--wait=false")
	left := func() string {
		out, _ := c.run("", "-n", r.ns, "get", "jobsets.jobset.x-k8s.io,jobs,pods", "-l", selector, "-o", "name")
		js, _ := c.run("", "-n", r.ns, "get", "jobsets.jobset.x-k8s.io", "-o", "name")
		return strings.TrimSpace(js + out)
	}
	if !waitUntil(2*time.Minute, func() bool { return left() == "" }) {
		t.Fatalf("2 minutes after the TrainJob's deletion, left: %s (pods: %s)", left(), running())
	}
	t.Logf("TrainJob %s (the owner of JobSet %s) deleted: its JobSet, Job and 2 pods gone in %s",
		name, jobset, time.Since(deleted).Round(time.Second))
}

// TestE2EKueueAdmitsTrainJobsOneAtATime is TestE2EKueueAdmitsOneAtATime's
// run for TrainJobs (Kueue's TrainJob integration), with the TrainJob the
// compiler makes of torch-ddp's train step on the queued platform of
// examples/shared-gpu-queue: two trainer nodes of two GPUs each, in a
// ClusterQueue of six GPUs. The first is admitted whole, and its two pods
// run (KWOK holds them); the second, whose four GPUs do not fit the two
// left, stays suspended, its Workload without quota, and is admitted
// whole only after the first has finished.
func TestE2EKueueAdmitsTrainJobsOneAtATime(t *testing.T) {
	c := e2eCluster(t)
	needTorchExample(t, "argo")
	t.Parallel()
	k := queuedKind{kind: "TrainJob", resource: "trainjobs.trainer.kubeflow.org", suspend: "{.spec.suspend}",
		done: "Complete", podSpec: holdPath, heldPod: "jobset.sigs.k8s.io/jobset-name=%s", pods: 2, gpus: 6,
		queueName: "team-a-gpu"}
	c.admitsOneAtATime(t, k, queuedTrainJob(t))
}

// queuedTrainJob is the TrainJob that torch-ddp's train step compiles to
// for Argo on examples/shared-gpu-queue's platform, as the step's
// container creates it, but for the owner reference to that container's
// pod, which would have the garbage collector delete it here.
func queuedTrainJob(t *testing.T) string {
	t.Helper()
	out, stderr, code := compileArgs(t, "mlcube-compile", "--backend", "argo",
		"--task", filepath.Join(repoRoot, "examples", torchExample, "pipeline.yaml"),
		"--platform", filepath.Join(sharedGPUQueue(t), "platform.yaml"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	docs := strings.Split(out, "\n---\n")
	manifest := *argoCreated(t, decodeWorkflow(t, docs[len(docs)-1]), "TrainJob")
	var job map[string]any
	if err := yaml.Unmarshal([]byte(asSubmitted(manifest)), &job); err != nil {
		t.Fatal(err)
	}
	meta := job["metadata"].(map[string]any)
	if meta["ownerReferences"] == nil {
		t.Fatalf("the compiled TrainJob has no owner reference: %s", manifest)
	}
	delete(meta, "ownerReferences")
	if spec := job["spec"].(map[string]any); spec["suspend"] != true {
		t.Fatalf("the compiled queued TrainJob is not created suspended: %v", spec["suspend"])
	}
	clean, err := yaml.Marshal(job)
	if err != nil {
		t.Fatal(err)
	}
	return string(clean)
}
