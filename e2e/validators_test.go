//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	"github.com/argoproj/argo-workflows/v3/workflow/validate"
	tektonv1 "github.com/tektoncd/pipeline/pkg/apis/pipeline/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"knative.dev/pkg/apis"
	"sigs.k8s.io/yaml"

	"github.com/mlcube-compile/mlcube-compile/backends/argo/argotest"
	"github.com/mlcube-compile/mlcube-compile/backends/tekton/tkntest"
)

// The validators the suite reads manifests back with: copies of
// cmd/mlcube-compile's (validators_test.go, tekton_pipeline_test.go,
// distributed_test.go), which parse a manifest back, strictly, and run
// the engine's upstream validator on it, as the cluster would when it is
// created.

// runDocument checks the documents before the run, a ConfigMap and RBAC
// objects, and returns the run, which comes last. Every configMapKeyRef
// in the run must name a key of the ConfigMap emitted with it.
func runDocument(t *testing.T, name, manifest string) string {
	t.Helper()
	docs := strings.Split(manifest, "\n---\n")
	run := docs[len(docs)-1]
	keys := map[string]bool{}
	for _, doc := range docs[:len(docs)-1] {
		var meta metav1.TypeMeta
		if err := yaml.Unmarshal([]byte(doc), &meta); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var obj any
		switch meta.Kind {
		case "ConfigMap":
			configMapKeys(t, name, doc, keys)
			continue
		case "ServiceAccount":
			obj = &corev1.ServiceAccount{}
		case "Role":
			obj = &rbacv1.Role{}
		case "RoleBinding":
			obj = &rbacv1.RoleBinding{}
		case "Secret":
			obj = &corev1.Secret{} // an Argo executor's token
		default:
			t.Fatalf("%s: unexpected %s before the run", name, meta.Kind)
		}
		if err := yaml.UnmarshalStrict([]byte(doc), obj); err != nil {
			t.Fatalf("%s: not a %s: %v", name, meta.Kind, err)
		}
	}
	var tree any
	if err := yaml.Unmarshal([]byte(run), &tree); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	// An Argo Workflow creates its ConfigMap in a resource template.
	walkMaps(tree, func(m map[string]any) {
		if doc, ok := m["manifest"].(string); ok && strings.Contains(doc, "kind: ConfigMap") {
			configMapKeys(t, name, doc, keys)
		}
	})
	walkMaps(tree, func(m map[string]any) {
		ref, ok := m["configMapKeyRef"].(map[string]any)
		if ok && !keys[fmt.Sprint(ref["name"])+"/"+fmt.Sprint(ref["key"])] {
			t.Errorf("%s: configMapKeyRef %v names no key of an emitted ConfigMap", name, ref)
		}
	})
	return run
}

// configMapKeys decodes a ConfigMap strictly, checks its keys, and adds
// name/key for each to keys.
func configMapKeys(t *testing.T, name, doc string, keys map[string]bool) {
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

// validateArgo checks whichever kind of Argo object the run is, and
// returns the spec of the workflows it runs. Besides v3.7's validator,
// which the compiler also runs, the run must pass v4's strict decoding
// and validator.
func validateArgo(t *testing.T, name, manifest string) wfv1.WorkflowSpec {
	t.Helper()
	run := runDocument(t, name, manifest)
	validateArgoV4(t, name, run)
	var meta metav1.TypeMeta
	if err := yaml.Unmarshal([]byte(run), &meta); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	switch meta.Kind {
	case "Workflow":
		return validateWorkflow(t, name, manifest).Spec
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

// validateWorkflow parses a manifest back and runs Argo's own validator,
// v3.7's and v4's.
func validateWorkflow(t *testing.T, name, manifest string) *wfv1.Workflow {
	t.Helper()
	run := runDocument(t, name, manifest)
	var wf wfv1.Workflow
	if err := yaml.UnmarshalStrict([]byte(run), &wf); err != nil {
		t.Fatalf("%s: not a Workflow: %v", name, err)
	}
	validateArgoV4(t, name, run)
	if err := validate.ValidateWorkflow(nil, nil, &wf, nil, validate.ValidateOpts{Lint: true}); err != nil {
		t.Fatalf("%s: Argo's validator rejects it: %v", name, err)
	}
	return &wf
}

// validateArgoV4 decodes an Argo run strictly into Argo v4's types and
// runs v4's validator on it: every Argo output must run on both v3.7 and
// v4 controllers.
func validateArgoV4(t *testing.T, name, run string) {
	t.Helper()
	if err := argotest.CheckVersion(argotest.V4, run); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// validatePipelineRun runs Tekton's defaulting and validation on a copy
// named as the API server names it from generateName.
func validatePipelineRun(t *testing.T, name, manifest string) *tektonv1.PipelineRun {
	t.Helper()
	var pr tektonv1.PipelineRun
	if err := yaml.UnmarshalStrict([]byte(runDocument(t, name, manifest)), &pr); err != nil {
		t.Fatalf("%s: not a PipelineRun: %v", name, err)
	}
	if pr.APIVersion != "tekton.dev/v1" || pr.Kind != "PipelineRun" {
		t.Fatalf("%s: %s %s, want tekton.dev/v1 PipelineRun", name, pr.APIVersion, pr.Kind)
	}
	created := pr.DeepCopy()
	created.Name = pr.GenerateName + "abcde"
	ctx := apis.WithinCreate(context.Background())
	created.SetDefaults(ctx)
	if ferr := created.Validate(ctx); ferr != nil {
		t.Fatalf("%s: Tekton's validation rejects it: %v", name, ferr)
	}
	return &pr
}

// validateTektonPipeline parses the run document as a tekton.dev/v1
// Pipeline, strictly, and runs Tekton's defaulting and validation on a
// copy, as its webhook does when the Pipeline is created.
func validateTektonPipeline(t *testing.T, name, manifest string) *tektonv1.Pipeline {
	t.Helper()
	var pl tektonv1.Pipeline
	if err := yaml.UnmarshalStrict([]byte(runDocument(t, name, manifest)), &pl); err != nil {
		t.Fatalf("%s: not a Pipeline: %v", name, err)
	}
	if pl.APIVersion != "tekton.dev/v1" || pl.Kind != "Pipeline" || pl.Name == "" {
		t.Fatalf("%s: %s %s %q, want a named tekton.dev/v1 Pipeline", name, pl.APIVersion, pl.Kind, pl.Name)
	}
	created := pl.DeepCopy()
	ctx := apis.WithinCreate(context.Background())
	created.SetDefaults(ctx)
	if ferr := created.Validate(ctx); ferr != nil {
		t.Fatalf("%s: Tekton's validation rejects the Pipeline: %v", name, ferr)
	}
	return &pl
}

// tknStart is the PipelineRun that `tkn pipeline start NAME -n NAMESPACE
// --use-param-defaults` makes of the Pipeline in manifest, with the flags
// that the warnings on stderr give (and their taskRunSpecs added).
func tknStart(t *testing.T, name, manifest, stderr string) (*tektonv1.Pipeline, *tektonv1.PipelineRun) {
	t.Helper()
	pl := validateTektonPipeline(t, name, manifest)
	start, err := tkntest.FromWarnings(strings.Split(stderr, "\n"))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	pr, err := start.PipelineRun(pl, "-n", pl.Namespace, "--use-param-defaults")
	if err != nil {
		t.Fatalf("%s: tkn pipeline start %s %s: %v\nstderr:\n%s", name, pl.Name, strings.Join(start.Args, " "), err, stderr)
	}
	return pl, pr
}

// taskJobs finds the jobs Tekton tasks create: the MANIFEST env of their
// kubectl steps.
func taskJobs(t *testing.T, tasks []tektonv1.PipelineTask) []map[string]any {
	t.Helper()
	var jobs []map[string]any
	for _, task := range tasks {
		for _, step := range task.TaskSpec.Steps {
			for _, e := range step.Env {
				if e.Name != "MANIFEST" {
					continue
				}
				var m map[string]any
				// The kubelet turns $$ back into $.
				if err := json.Unmarshal([]byte(strings.ReplaceAll(e.Value, "$$", "$")), &m); err != nil {
					t.Fatalf("task %s: %v", task.Name, err)
				}
				jobs = append(jobs, m)
			}
		}
	}
	return jobs
}

// embeddedJobs finds the jobs a manifest creates: the manifests of Argo
// resource templates, or the MANIFEST env of Tekton kubectl steps.
func embeddedJobs(t *testing.T, backend, out string) []map[string]any {
	t.Helper()
	var jobs []map[string]any
	switch backend {
	case "argo":
		for _, tmpl := range validateArgo(t, "output", out).Templates {
			if tmpl.Resource == nil || tmpl.Resource.Action != "create" {
				continue
			}
			var m map[string]any
			if err := yaml.UnmarshalStrict([]byte(tmpl.Resource.Manifest), &m); err != nil {
				t.Fatalf("template %s: %v", tmpl.Name, err)
			}
			jobs = append(jobs, m)
		}
	case "tekton":
		jobs = taskJobs(t, validatePipelineRun(t, "output", out).Spec.PipelineSpec.Tasks)
	case "tekton-pipeline":
		jobs = taskJobs(t, validateTektonPipeline(t, "output", out).Spec.Tasks)
	}
	return jobs
}

// walkMaps calls fn with every map in v, at any depth.
func walkMaps(v any, fn func(map[string]any)) {
	switch v := v.(type) {
	case map[string]any:
		fn(v)
		for _, x := range v {
			walkMaps(x, fn)
		}
	case []any:
		for _, x := range v {
			walkMaps(x, fn)
		}
	}
}
