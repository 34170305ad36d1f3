package main

import (
	"path/filepath"
	"strings"
	"testing"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	kubeflow "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// Wherever fsGroup is set, fsGroupChangePolicy is OnRootMismatch, so the
// kubelet does not change the group of every file of a large volume each
// time a pod starts: in every backend's pods and in every job's pods.
func TestFSGroupChangePolicyOnRootMismatch(t *testing.T) {
	for _, ex := range []string{"resnet50-multinode", "single-gpu-task"} {
		for _, backend := range backendNames {
			out, _, code := compileArgs(t, append([]string{"mlcube-compile", "--backend", backend}, exampleArgs(filepath.Join(repoRoot, "examples", ex))...)...)
			if code != 0 {
				continue // job takes one step without a distributed job
			}
			docs := []any{}
			for _, doc := range strings.Split(out, "\n---\n") {
				var m any
				if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
					t.Fatal(err)
				}
				docs = append(docs, m)
			}
			for _, m := range embeddedJobs(t, backend, out) {
				docs = append(docs, m)
			}
			found := 0
			walkMaps(docs, func(m map[string]any) {
				if _, ok := m["fsGroup"]; ok {
					found++
					if m["fsGroupChangePolicy"] != "OnRootMismatch" {
						t.Errorf("%s %s: securityContext %v without fsGroupChangePolicy: OnRootMismatch", ex, backend, m)
					}
				}
			})
			if found == 0 {
				t.Errorf("%s %s: no fsGroup found; the example sets one", ex, backend)
			}
		}
	}
}

// limitsEqualRequests limits every container's cpu and memory to its
// requests, the engine's own kubectl step too, for namespaces whose
// ResourceQuota counts limits.
func TestLimitsEqualRequests(t *testing.T) {
	dir := resnetPipeline(t, "    resources: {cpu: \"8\", memory: 32Gi, gpu: 1}\n    mpi: {workers: 2, launcher: {cpu: \"1\", memory: 2Gi}}\n", "limitsEqualRequests: true\n")
	out, stderr := compileDir(t, "tekton", dir)
	// resnet50's cube runs with --shm-size=1g: /dev/shm is charged to the
	// container's memory, which is also its limit.
	if want := "steps.train.resources.memory: /dev/shm (--shm-size 1Gi) is memory charged to the container, and with the platform's limitsEqualRequests its memory is also its limit: the step asks for and is limited to 32Gi + 1Gi = 33Gi"; !strings.Contains(stderr, want) || strings.Count(stderr, "warning") != 1 {
		t.Errorf("want one warning, %q; got %s", want, stderr)
	}
	for name, r := range mpiJobOf(t, "tekton", out).Spec.MPIReplicaSpecs {
		res := r.Template.Spec.Containers[0].Resources
		for _, k := range []string{"cpu", "memory"} {
			if res.Limits.Name(corev1.ResourceName(k), "").String() != res.Requests.Name(corev1.ResourceName(k), "").String() {
				t.Errorf("%s limit %v, want its request %v", k, res.Limits, res.Requests)
			}
		}
		if name == kubeflow.MPIReplicaTypeWorker && res.Limits.Memory().String() != "33Gi" {
			t.Errorf("the workers' memory limit %v, want 33Gi: 32Gi and the 1Gi /dev/shm", res.Limits.Memory())
		}
	}
	kubectl := validatePipelineRun(t, "tekton", out).Spec.PipelineSpec.Tasks[0].TaskSpec.Steps[0].ComputeResources
	if kubectl.Limits.Cpu().IsZero() || kubectl.Limits.Memory().IsZero() {
		t.Errorf("the kubectl step has no limits: %v", kubectl)
	}
	dir = resnetPipeline(t, "    mpi: {workers: 2}\n", "limitsEqualRequests: true\n")
	out, stderr = compileDir(t, "argo", dir)
	if !strings.Contains(stderr, "steps.train.resources: the platform sets limitsEqualRequests, but this requests no cpu or no memory") {
		t.Errorf("a step without requests under limitsEqualRequests: no warning in %q", stderr)
	}
	// Without mpi.launcher, the launcher still gets limits.
	if res := launcherOf(mpiJobOf(t, "argo", out)).Resources; res.Limits.Cpu().IsZero() || res.Limits.Memory().IsZero() {
		t.Errorf("the launcher has no limits under limitsEqualRequests: %v", res)
	}
}

// A CronWorkflow whose runs share a fixed claim does not let them overlap
// unless the schedule says so.
func TestCronOverFixedClaimForbidsOverlap(t *testing.T) {
	for platform, want := range map[string]string{"storage: {pvc: data}\n": "Forbid", "storage: {size: 1Gi}\n": "", "storage: {pvc: data}\nnamespace: x\n": "Forbid"} {
		specs := writeFiles(t, map[string]string{
			"mlcube.yaml":   goodCube,
			"platform.yaml": platform,
			"pipeline.yaml": "schedule: '@daily'\nsteps:\n  train: {task: train}\n",
		})
		out, stderr, code := compileArgs(t, "mlcube-compile", "--kind", "cronworkflow", "--mlcube", specs, "--task", filepath.Join(specs, "pipeline.yaml"), "--platform", filepath.Join(specs, "platform.yaml"))
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		var cron wfv1.CronWorkflow
		if err := yaml.Unmarshal([]byte(out), &cron); err != nil {
			t.Fatal(err)
		}
		if got := string(cron.Spec.ConcurrencyPolicy); got != want {
			t.Errorf("%q: concurrencyPolicy %q, want %q", platform, got, want)
		}
	}
	specs := writeFiles(t, map[string]string{"mlcube.yaml": goodCube, "pipeline.yaml": "schedule: {cron: '@daily', concurrencyPolicy: Allow}\nsteps:\n  train: {task: train}\n"})
	out, _, _ := compileArgs(t, "mlcube-compile", "--kind", "cronworkflow", "--mlcube", specs, "--task", filepath.Join(specs, "pipeline.yaml"))
	if !strings.Contains(out, "concurrencyPolicy: Allow") {
		t.Errorf("a written concurrencyPolicy is kept:\n%s", out)
	}
}
