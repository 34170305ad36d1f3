//go:build e2e

package main

import (
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
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
	pod := r.launcher(t)
	launcher := pod.Containers[0]
	np, argv := mpirunCommand(t, launcher)
	w := want{argv: argv, env: r.wantEnv(launcher.Env, func(s string) string { return s }, nil)}
	w.securityContext(pod.SecurityContext)
	for _, m := range launcher.VolumeMounts {
		if slices.ContainsFunc(pod.Volumes, func(v corev1.Volume) bool { return v.Name == m.Name && v.PersistentVolumeClaim != nil }) {
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
			t.Errorf("%s: world of %d, allreduce sum %d; want %d ranks summing to %d", step, rec.MPI.Size, rec.MPI.Sum, np, np*(np-1)/2)
		}
		checkRecord(t, step, w, rec)
	}
	if len(ranks) != np {
		t.Fatalf("%d ranks recorded (%v), want -np %d", len(ranks), slices.Sorted(maps.Keys(ranks)), np)
	}
	worker := regexp.MustCompile(`^resnet50-multinode-train-[a-z0-9]+-worker-[0-9]+$`)
	for host, n := range hosts {
		if !worker.MatchString(host) || n != 1 {
			t.Errorf("%d ranks on %s; want one rank on each worker pod (slotsPerWorker 1)", n, host)
		}
	}
	t.Logf("%s: Succeeded on %s in %s; %d ranks on %d workers, each summed %d in the allreduce and got argv, %d env values, uid %d",
		done.Name, realNode, done.Status.FinishedAt.Sub(done.Status.StartedAt.Time), len(ranks), len(hosts), np*(np-1)/2, len(w.env), *w.uid)
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

// launcher is the launcher's pod in the golden file's MPIJob.
func (r *realRun) launcher(t *testing.T) corev1.PodSpec {
	t.Helper()
	for _, tmpl := range r.golden.Spec.Templates {
		if tmpl.Resource == nil || tmpl.Resource.Action != "create" || !strings.Contains(tmpl.Resource.Manifest, "kind: MPIJob") {
			continue
		}
		var job mpiJob
		if err := yaml.Unmarshal([]byte(tmpl.Resource.Manifest), &job); err != nil {
			t.Fatal(err)
		}
		spec := job.Spec.MPIReplicaSpecs["Launcher"].Template.Spec
		if len(spec.Containers) == 0 {
			t.Fatal("the MPIJob has no launcher container")
		}
		return spec
	}
	t.Fatal("no MPIJob in the golden workflow")
	return corev1.PodSpec{}
}

// pinJobs does for the pods of each MPIJob the workflow creates what
// newRealRun does for the workflow's own: keeps them on the real node and
// shrinks their cpu and memory. Nothing else of the manifest changes.
func (r *realRun) pinJobs(t *testing.T) {
	t.Helper()
	for i := range r.wf.Spec.Templates {
		res := r.wf.Spec.Templates[i].Resource
		if res == nil || res.Action != "create" || !strings.Contains(res.Manifest, "kind: MPIJob") {
			continue
		}
		var job map[string]any
		if err := yaml.Unmarshal([]byte(res.Manifest), &job); err != nil {
			t.Fatal(err)
		}
		replicas, _ := job["spec"].(map[string]any)["mpiReplicaSpecs"].(map[string]any)
		for _, rs := range replicas {
			tmpl := rs.(map[string]any)["template"].(map[string]any)
			var spec corev1.PodSpec
			data, _ := json.Marshal(tmpl["spec"])
			if err := json.Unmarshal(data, &spec); err != nil {
				t.Fatal(err)
			}
			if spec.NodeSelector == nil {
				spec.NodeSelector = map[string]string{}
			}
			spec.NodeSelector["kubernetes.io/hostname"] = realNode
			spec.Tolerations = append(spec.Tolerations, corev1.Toleration{Key: realNodeTaint, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule})
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
		out, err := yaml.Marshal(job)
		if err != nil {
			t.Fatal(err)
		}
		res.Manifest = string(out)
	}
}
