package argo_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/internal/enginetest"
	"github.com/mlcube-compile/mlcube-compile/internal/manifestcheck"
)

// applyPodSpecPatch merges a template's podSpecPatch into spec as Argo's
// controller does (ApplyPodSpecPatch, workflow/util/util.go, v3.7.18 and
// v4.0.7: the YAML made JSON, checked to be a PodSpec, then
// strategicpatch.StrategicMergePatch with a PodSpec's schema).
func applyPodSpecPatch(t *testing.T, spec corev1.PodSpec, patch string) corev1.PodSpec {
	t.Helper()
	patchJSON, err := yaml.YAMLToJSON([]byte(patch))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(patchJSON, &corev1.PodSpec{}); err != nil {
		t.Fatalf("the podSpecPatch is no PodSpec: %v", err)
	}
	specJSON, err := yaml.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	if specJSON, err = yaml.YAMLToJSON(specJSON); err != nil {
		t.Fatal(err)
	}
	merged, err := strategicpatch.StrategicMergePatch(specJSON, patchJSON, corev1.PodSpec{})
	if err != nil {
		t.Fatal(err)
	}
	var out corev1.PodSpec
	if err := yaml.Unmarshal(merged, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// templateNamed is the template of wf named name.
func templateNamed(t *testing.T, wf *wfv1.Workflow, name string) wfv1.Template {
	t.Helper()
	for _, tmpl := range wf.Spec.Templates {
		if tmpl.Name == name {
			return tmpl
		}
	}
	t.Fatalf("no template %s", name)
	return wfv1.Template{}
}

// The step's pod gets its claim through podSpecPatch, merged as Argo
// merges it beside the executor's wait container, and its container
// names the claim; the template it claims from is applied by the run's
// first task, which every other waits for.
func TestGPUClaimsOnArgo(t *testing.T) {
	wf := workflow(t, build(t, manifestcheck.Specs(enginetest.Example(t, "dra-gpu")), emit.Options{}))
	tasks := templateNamed(t, wf, wf.Spec.Entrypoint).DAG.Tasks
	if tasks[0].Name != "gpu-claims" || len(tasks) != 2 || !cmp.Equal(tasks[1].Dependencies, []string{"gpu-claims"}) {
		t.Fatalf("want gpu-claims first and train after it, got %+v", tasks)
	}
	apply := templateNamed(t, wf, "gpu-claims").Resource
	var tmpl resourcev1.ResourceClaimTemplate
	if err := yaml.UnmarshalStrict([]byte(apply.Manifest), &tmpl); apply.Action != "apply" || err != nil {
		t.Fatalf("gpu-claims: %s %v", apply.Action, err)
	}
	train := templateNamed(t, wf, "train")
	if diff := cmp.Diff([]corev1.ResourceClaim{{Name: "gpu"}}, train.Container.Resources.Claims); diff != "" ||
		train.Container.Resources.Limits != nil {
		t.Errorf("main's claims (-want +got):\n%s\nlimits: %v", diff, train.Container.Resources.Limits)
	}
	pod := corev1.PodSpec{Containers: []corev1.Container{{Name: "wait", Image: "argoexec"}, *train.Container}}
	got := applyPodSpecPatch(t, pod, train.PodSpecPatch)
	want := pod.DeepCopy()
	want.ResourceClaims = []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimTemplateName: ptr.To(tmpl.Name)}}
	if diff := cmp.Diff(*want, got); diff != "" {
		t.Errorf("the pod after podSpecPatch (-want +got):\n%s", diff)
	}
}

// A step whose data moves runs as a containerSet: the user's container
// ("run" when it uploads) names the claim, and the pod gets it.
func TestGPUClaimsInAContainerSet(t *testing.T) {
	dir := enginetest.Example(t, "mnist-bucket")
	plat, err := os.ReadFile(filepath.Join(dir, "platform.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	pipeline, err := os.ReadFile(filepath.Join(dir, "pipeline.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	specs := enginetest.WriteFiles(t, map[string]string{
		"platform.yaml": string(plat) + "gpu: {deviceClass: gpu.example.com}\n",
		"pipeline.yaml": strings.Replace(string(pipeline), "../mnist", enginetest.Example(t, "mnist"), 1) +
			"    resources: {gpu: 1}\n",
	})
	wf := workflow(t, build(t, manifestcheck.Specs(specs), emit.Options{}))
	for _, tmpl := range wf.Spec.Templates {
		if tmpl.ContainerSet == nil || tmpl.PodSpecPatch == "" {
			continue
		}
		var named []string
		for _, c := range tmpl.ContainerSet.Containers {
			if len(c.Resources.Claims) > 0 {
				named = append(named, c.Name)
			}
		}
		if diff := cmp.Diff([]string{"run"}, named); diff != "" {
			t.Errorf("%s: containers that name the claim (-want +got):\n%s", tmpl.Name, diff)
		}
		return
	}
	t.Fatal("no containerSet with a podSpecPatch")
}

// --emit-rbac lets the run's account apply the templates; without an
// account, the compile says it needs one.
func TestGPUClaimTemplatesAccount(t *testing.T) {
	specs := manifestcheck.Specs(enginetest.Example(t, "dra-gpu"))
	out := build(t, specs, emit.Options{RBAC: true}).Must(t)
	if y := out.YAML(t); !strings.Contains(y,
		"- resource.k8s.io\n  resources:\n  - resourceclaimtemplates\n  verbs:\n  - create\n  - get\n  - patch\n") {
		t.Errorf("no rule on resourceclaimtemplates in:\n%s", y)
	}
	dir := enginetest.WriteFiles(t, map[string]string{"platform.yaml": "gpu: {deviceClass: gpu.example.com}\n"})
	specs.Platform = filepath.Join(dir, "platform.yaml")
	stderr := build(t, specs, emit.Options{}).Must(t).Stderr()
	if !strings.Contains(stderr,
		"platform.yaml:1:7: warning: gpu.deviceClass: argo: the run uses the namespace's default service account, which "+
			"cannot create the ResourceClaimTemplate") {
		t.Errorf("no MLC608 at gpu.deviceClass:\n%s", stderr)
	}
}
