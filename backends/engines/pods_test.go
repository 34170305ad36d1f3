package engines_test

import (
	"strings"
	"testing"

	kubeflow "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	tektonv1 "github.com/tektoncd/pipeline/pkg/apis/pipeline/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/internal/enginetest"
	"github.com/mlcube-compile/mlcube-compile/internal/manifestcheck"
)

// Wherever fsGroup is set, fsGroupChangePolicy is OnRootMismatch, so the
// kubelet does not change the group of every file of a large volume each
// time a pod starts: in every backend's pods and in every job's pods.
func TestFSGroupChangePolicyOnRootMismatch(t *testing.T) {
	for _, ex := range []string{"resnet50-multinode", "single-gpu-task"} {
		for _, backend := range backendNames() {
			out := manifestcheck.BuildFor(t, backend, manifestcheck.Specs(enginetest.Example(t, ex)), emit.Options{})
			if out.Failed() {
				continue // job takes one step without a distributed job
			}
			var docs []any
			for _, obj := range out.Objects() {
				docs = append(docs, enginetest.Tree(t, obj))
			}
			for _, m := range enginetest.Jobs(t, out.Run) {
				docs = append(docs, m)
			}
			found := 0
			manifestcheck.WalkMaps(docs, func(m map[string]any) {
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
	dir := enginetest.ResNetPipeline(t, "    resources: {cpu: \"8\", memory: 32Gi, gpu: 1}\n"+
		"    mpi: {workers: 2, launcher: {cpu: \"1\", memory: 2Gi}}\n", "limitsEqualRequests: true\n")
	out := manifestcheck.BuildFor(t, "tekton", manifestcheck.Specs(dir), emit.Options{}).Must(t)
	// resnet50's cube runs with --shm-size=1g: /dev/shm is charged to the
	// container's memory, which is also its limit.
	want := "steps.train.resources.memory: the step asks for and is limited to 32Gi + 1Gi of /dev/shm (--shm-size) = " +
		"33Gi of memory"
	if stderr := out.Stderr(); !strings.Contains(stderr, want) || strings.Count(stderr, "warning") != 1 {
		t.Errorf("want one warning, %q; got %s", want, stderr)
	}
	for name, r := range enginetest.OneMPIJob(t, out.Run).Spec.MPIReplicaSpecs {
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
	kubectl := out.Run.(*tektonv1.PipelineRun).Spec.PipelineSpec.Tasks[0].TaskSpec.Steps[0].ComputeResources
	if kubectl.Limits.Cpu().IsZero() || kubectl.Limits.Memory().IsZero() {
		t.Errorf("the kubectl step has no limits: %v", kubectl)
	}
	dir = enginetest.ResNetPipeline(t, "    mpi: {workers: 2}\n", "limitsEqualRequests: true\n")
	out = manifestcheck.BuildFor(t, "argo", manifestcheck.Specs(dir), emit.Options{}).Must(t)
	if stderr := out.Stderr(); !strings.Contains(stderr,
		"steps.train.resources: the platform sets limitsEqualRequests, but this requests no cpu or no memory") {
		t.Errorf("a step without requests under limitsEqualRequests: no warning in %q", stderr)
	}
	// Without mpi.launcher, the launcher still gets limits.
	if res := enginetest.Launcher(enginetest.OneMPIJob(t, out.Run)).Resources; res.Limits.Cpu().IsZero() ||
		res.Limits.Memory().IsZero() {
		t.Errorf("the launcher has no limits under limitsEqualRequests: %v", res)
	}
}

// Tekton's kubectl step receives the job's manifest in one environment
// variable, and Linux refuses any environment string over 128 KiB: a
// step whose manifest is larger is refused with the size, never emitted
// as a pod that cannot start. Argo moves a large template to a ConfigMap
// by itself, so it compiles there.
func TestTektonManifestOverTheEnvLimitRefused(t *testing.T) {
	// The launcher's and the workers' env both carry the value.
	big := strings.Repeat("x", 70<<10)
	dir := enginetest.ResNetPipeline(t, "    env: {BIG: "+big+"}\n    mpi: {workers: 2}\n", "")
	out := manifestcheck.BuildFor(t, "tekton", manifestcheck.Specs(dir), emit.Options{})
	if stderr := out.Stderr(); !out.Failed() || out.Run != nil ||
		!strings.Contains(stderr, "steps.train: tekton: the variable MANIFEST would be 1") ||
		!strings.Contains(stderr, "argument list too long") {
		t.Errorf("failed %v, run %T, %q; want the size refused", out.Failed(), out.Run, stderr)
	}
	stderr := manifestcheck.BuildFor(t, "argo", manifestcheck.Specs(dir), emit.Options{}).Must(t).Stderr()
	if strings.Contains(stderr, "MANIFEST") {
		t.Errorf("argo: %q", stderr)
	}
	small := enginetest.ResNetPipeline(t, "    env: {SMALL: "+strings.Repeat("x", 50<<10)+"}\n    mpi: {workers: 2}\n", "")
	manifestcheck.BuildFor(t, "tekton", manifestcheck.Specs(small), emit.Options{}).Must(t)
}
