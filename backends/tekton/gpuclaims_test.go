package tekton_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	tektonv1 "github.com/tektoncd/pipeline/pkg/apis/pipeline/v1"
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"

	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/internal/enginetest"
	"github.com/mlcube-compile/mlcube-compile/internal/manifestcheck"
)

// draPlatform compiles examples/dra-gpu with the platform file gpu, the
// lines under gpu:.
func draPlatform(t *testing.T, gpu string) enginetest.Emitted {
	t.Helper()
	specs := manifestcheck.Specs(enginetest.Example(t, "dra-gpu"))
	specs.Platform = filepath.Join(enginetest.WriteFiles(t, map[string]string{"platform.yaml": "gpu:\n" + gpu}),
		"platform.yaml")
	return build(t, specs, emit.Options{})
}

// trainLimits are the limits of the train task's step.
func trainLimits(t *testing.T, out enginetest.Emitted) corev1.ResourceRequirements {
	t.Helper()
	for _, task := range out.Run.(*tektonv1.PipelineRun).Spec.PipelineSpec.Tasks {
		if task.Name == "train" {
			steps := task.TaskSpec.Steps
			return steps[len(steps)-1].ComputeResources // after the step that makes its folders
		}
	}
	t.Fatal("no train task")
	return corev1.ResourceRequirements{}
}

// A TaskRun's pod cannot carry claims, so a container step asks for the
// class's extended resource, the platform's extendedResourceName or the
// name Kubernetes gives every class, with a warning, and no template is
// emitted for it.
func TestGPUsAsLimitOnTekton(t *testing.T) {
	for gpu, want := range map[string]string{
		"  deviceClass: gpu.example.com\n" +
			"  extendedResourceName: example.com/gpu\n": "example.com/gpu",
		"  deviceClass: gpu.example.com\n": "deviceclass.resource.kubernetes.io/gpu.example.com",
	} {
		out := draPlatform(t, gpu).Must(t)
		wantLimits := corev1.ResourceRequirements{
			Limits: corev1.ResourceList{corev1.ResourceName(want): resource.MustParse("1")},
		}
		if diff := cmp.Diff(wantLimits, trainLimits(t, out)); diff != "" {
			t.Errorf("%s: the step's resources (-want +got):\n%s", gpu, diff)
		}
		if len(out.ResourceClaimTemplates) != 0 {
			t.Errorf("%s: templates nobody claims from: %v", gpu, out.ResourceClaimTemplates)
		}
		if stderr := out.Stderr(); !strings.Contains(stderr,
			"warning: tasks.train: tekton: step train asks for its GPUs as the limit "+want+", ") {
			t.Errorf("%s: no MLC308 in:\n%s", gpu, stderr)
		}
	}
}

// A request no limit can say is refused at what keeps it from being one,
// with the fix.
func TestGPUClaimsRefusedOnTekton(t *testing.T) {
	for gpu, want := range map[string]string{
		"  deviceClass: gpu.example.com\n  selector: device.driver == \"x\"\n": "platform.yaml:3:3: gpu.selector: tekton: " +
			"step train cannot ask for its GPUs as a limit: its selector narrows the class's " +
			"devices, which a limit cannot say; ask for them so that a limit can",
		"  sharedClaim: team-a100\n": "platform.yaml:2:3: gpu.sharedClaim: tekton: step train cannot ask for " +
			"its GPUs as a limit: its pods share the existing ResourceClaim team-a100, which no " +
			"limit can name; ask for them so that a limit can",
	} {
		out := draPlatform(t, gpu)
		if stderr := out.Stderr(); !out.Failed() || !strings.Contains(stderr, want) || !strings.Contains(stderr, "[MLC650]") {
			t.Errorf("want %q…, got:\n%s", want, stderr)
		}
	}
}

// An MPIJob's pods carry their claims: the workers claim their GPUs from
// the template, which is the document before the run; the launcher,
// which asks for none, claims nothing.
func TestMPIJobClaimsOnTekton(t *testing.T) {
	out := build(t, manifestcheck.Specs(enginetest.Example(t, "dra-mpi")), emit.Options{}).Must(t)
	if len(out.ResourceClaimTemplates) != 1 {
		t.Fatalf("want one template before the run, got %v", out.ResourceClaimTemplates)
	}
	tmpl := out.ResourceClaimTemplates[0].(*resourcev1.ResourceClaimTemplate)
	job := enginetest.OneMPIJob(t, out.Run)
	want := map[string][]corev1.PodResourceClaim{
		"Launcher": nil,
		"Worker":   {{Name: "gpu", ResourceClaimTemplateName: ptr.To(tmpl.Name)}},
	}
	got := map[string][]corev1.PodResourceClaim{}
	for kind, r := range job.Spec.MPIReplicaSpecs {
		got[string(kind)] = r.Template.Spec.ResourceClaims
		if claims := r.Template.Spec.Containers[0].Resources.Claims; (claims != nil) != (kind == "Worker") {
			t.Errorf("%s's container claims %v", kind, claims)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the pods' claims (-want +got):\n%s", diff)
	}
}
