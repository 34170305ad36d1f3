package manifestcheck

import (
	"context"
	"fmt"
	"strings"
	"testing"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	"github.com/argoproj/argo-workflows/v3/workflow/validate"
	tektonv1 "github.com/tektoncd/pipeline/pkg/apis/pipeline/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"knative.dev/pkg/apis"
	"sigs.k8s.io/yaml"

	"github.com/mlcube-compile/mlcube-compile/backends/argo/argotest"
	"github.com/mlcube-compile/mlcube-compile/backends/job"
)

// The validators below parse a manifest the command printed back,
// strictly, and run the engine's upstream validator on it, as the
// cluster would when it is created; the command's tests and the e2e
// suite share them.

// RunDocument checks the documents before the run, a ConfigMap and RBAC
// objects, and returns the run, which comes last. Every configMapKeyRef
// in the run must name a key of the ConfigMap emitted with it.
func RunDocument(t testing.TB, name, manifest string) string {
	t.Helper()
	docs := strings.Split(manifest, "\n---\n")
	run := docs[len(docs)-1]
	keys, templates := map[string]bool{}, map[string]bool{}
	for _, doc := range docs[:len(docs)-1] {
		beforeRun(t, name, doc, keys, templates)
	}
	checkClaimRefs(t, name, run, templates)
	tree := runTree(t, name, run)
	// An Argo Workflow creates its ConfigMap in a resource template.
	WalkMaps(tree, func(m map[string]any) {
		if doc, ok := m["manifest"].(string); ok && strings.Contains(doc, "kind: ConfigMap") {
			ConfigMapKeys(t, name, doc, keys)
		}
	})
	WalkMaps(tree, func(m map[string]any) {
		ref, ok := m["configMapKeyRef"].(map[string]any)
		if ok && !keys[fmt.Sprint(ref["name"])+"/"+fmt.Sprint(ref["key"])] {
			t.Errorf("%s: configMapKeyRef %v names no key of an emitted ConfigMap", name, ref)
		}
	})
	return run
}

// beforeRun decodes one document before the run strictly, as its kind;
// it adds each ConfigMap key to keys, and each ResourceClaimTemplate's
// name to templates.
func beforeRun(t testing.TB, name, doc string, keys, templates map[string]bool) {
	t.Helper()
	var meta metav1.TypeMeta
	if err := yaml.Unmarshal([]byte(doc), &meta); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var obj any
	switch meta.Kind {
	case "ConfigMap":
		ConfigMapKeys(t, name, doc, keys)
		return
	case "ResourceClaimTemplate":
		claimTemplate(t, name, doc, templates)
		return
	case "ServiceAccount":
		obj = &corev1.ServiceAccount{}
	case "Role":
		obj = &rbacv1.Role{}
	case "RoleBinding":
		obj = &rbacv1.RoleBinding{}
	case "Secret":
		obj = &corev1.Secret{} // an Argo executor's token
	case "NetworkPolicy":
		obj = &networkingv1.NetworkPolicy{} // MedPerf's steps without network
	default:
		t.Fatalf("%s: unexpected %s before the run", name, meta.Kind)
	}
	if err := yaml.UnmarshalStrict([]byte(doc), obj); err != nil {
		t.Fatalf("%s: not a %s: %v", name, meta.Kind, err)
	}
}

// ConfigMapKeys decodes a ConfigMap strictly, checks its keys, and adds
// name/key for each to keys.
func ConfigMapKeys(t testing.TB, name, doc string, keys map[string]bool) {
	t.Helper()
	var cm corev1.ConfigMap
	if err := yaml.UnmarshalStrict([]byte(doc), &cm); err != nil {
		t.Fatalf("%s: not a ConfigMap: %v", name, err)
	}
	for k := range cm.Data {
		if errs := validation.IsConfigMapKey(k); len(errs) > 0 {
			t.Errorf("%s: ConfigMap key %q: %v", name, k, errs)
		}
		keys[cm.Name+"/"+k] = true
	}
}

// ValidateArgo checks whichever kind of Argo object the run is, and
// returns the spec of the workflows it runs. Besides v3.7's validator,
// which the compiler also runs, the run must pass v4's strict decoding
// and validator.
func ValidateArgo(t testing.TB, name, manifest string) wfv1.WorkflowSpec {
	t.Helper()
	run := RunDocument(t, name, manifest)
	ValidateArgoV4(t, name, run)
	var meta metav1.TypeMeta
	if err := yaml.Unmarshal([]byte(run), &meta); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	switch meta.Kind {
	case "Workflow":
		return ValidateWorkflow(t, name, manifest).Spec
	case "WorkflowTemplate":
		var tmpl wfv1.WorkflowTemplate
		if err := yaml.UnmarshalStrict([]byte(run), &tmpl); err != nil {
			t.Fatalf("%s: not a WorkflowTemplate: %v", name, err)
		}
		if err := validate.ValidateWorkflowTemplate(nil, nil, &tmpl, nil, validate.ValidateOpts{Lint: true}); err != nil {
			t.Fatalf("%s: Argo's validator rejects it: %v", name, err)
		}
		return tmpl.Spec
	case "CronWorkflow":
		var cron wfv1.CronWorkflow
		if err := yaml.UnmarshalStrict([]byte(run), &cron); err != nil {
			t.Fatalf("%s: not a CronWorkflow: %v", name, err)
		}
		if err := validate.ValidateCronWorkflow(context.Background(), nil, nil, &cron, nil); err != nil {
			t.Fatalf("%s: Argo's validator rejects it: %v", name, err)
		}
		return cron.Spec.WorkflowSpec
	}
	t.Fatalf("%s: %s is not an Argo kind", name, meta.Kind)
	return wfv1.WorkflowSpec{}
}

// ValidateWorkflow parses a manifest back and runs Argo's own validator,
// v3.7's and v4's.
func ValidateWorkflow(t testing.TB, name, manifest string) *wfv1.Workflow {
	t.Helper()
	run := RunDocument(t, name, manifest)
	var wf wfv1.Workflow
	if err := yaml.UnmarshalStrict([]byte(run), &wf); err != nil {
		t.Fatalf("%s: not a Workflow: %v", name, err)
	}
	ValidateArgoV4(t, name, run)
	if err := validate.ValidateWorkflow(nil, nil, &wf, nil, validate.ValidateOpts{Lint: true}); err != nil {
		t.Fatalf("%s: Argo's validator rejects it: %v", name, err)
	}
	return &wf
}

// ValidateArgoV4 decodes an Argo run strictly into Argo v4's types and
// runs v4's validator on it: every Argo output must run on both v3.7 and
// v4 controllers.
func ValidateArgoV4(t testing.TB, name, run string) {
	t.Helper()
	if err := argotest.CheckVersion(argotest.V4, run); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// ValidatePipelineRun runs Tekton's defaulting and validation on a copy
// named as the API server names it from generateName.
func ValidatePipelineRun(t testing.TB, name, manifest string) *tektonv1.PipelineRun {
	t.Helper()
	var pr tektonv1.PipelineRun
	if err := yaml.UnmarshalStrict([]byte(RunDocument(t, name, manifest)), &pr); err != nil {
		t.Fatalf("%s: not a PipelineRun: %v", name, err)
	}
	if pr.APIVersion != "tekton.dev/v1" || pr.Kind != "PipelineRun" {
		t.Fatalf("%s: %s %s, want tekton.dev/v1 PipelineRun", name, pr.APIVersion, pr.Kind)
	}
	CreatePipelineRun(t, name, &pr)
	return &pr
}

// CreatePipelineRun runs Tekton's defaulting and validation on a copy of
// pr named as the API server names it, as its webhook does.
func CreatePipelineRun(t testing.TB, name string, pr *tektonv1.PipelineRun) {
	t.Helper()
	created := pr.DeepCopy()
	created.Name = pr.GenerateName + "abcde"
	ctx := apis.WithinCreate(context.Background())
	created.SetDefaults(ctx)
	if ferr := created.Validate(ctx); ferr != nil {
		t.Fatalf("%s: Tekton's validation rejects it: %v", name, ferr)
	}
}

// ValidateJob parses a Job back and checks it.
func ValidateJob(t testing.TB, name, manifest string) *batchv1.Job {
	t.Helper()
	var j batchv1.Job
	if err := yaml.UnmarshalStrict([]byte(RunDocument(t, name, manifest)), &j); err != nil {
		t.Fatalf("%s: not a Job: %v", name, err)
	}
	if j.APIVersion != "batch/v1" || j.Kind != "Job" {
		t.Fatalf("%s: %s %s, want batch/v1 Job", name, j.APIVersion, j.Kind)
	}
	if err := job.Validate(&j); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return &j
}

// WalkMaps calls fn with every mapping in v, depth first.
func WalkMaps(v any, fn func(map[string]any)) {
	switch v := v.(type) {
	case map[string]any:
		fn(v)
		for _, x := range v {
			WalkMaps(x, fn)
		}
	case []any:
		for _, x := range v {
			WalkMaps(x, fn)
		}
	}
}
