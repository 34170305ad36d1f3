package enginetest

import (
	"slices"
	"testing"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// ConfigEnv maps each env var set from a ConfigMap to "name/key".
func ConfigEnv(env []corev1.EnvVar) map[string]string {
	out := map[string]string{}
	for _, e := range env {
		if e.ValueFrom != nil && e.ValueFrom.ConfigMapKeyRef != nil {
			out[e.Name] = e.ValueFrom.ConfigMapKeyRef.Name + "/" + e.ValueFrom.ConfigMapKeyRef.Key
		}
	}
	return out
}

// ConfigMap is the ConfigMap a run reads: the result's, applied before
// the run, or, for an Argo Workflow, the one its first task applies
// (server-side, owned by the run, not as its controller), which every
// other task waits for.
func ConfigMap(t testing.TB, res Emitted) *corev1.ConfigMap {
	t.Helper()
	wf, ok := res.Run.(*wfv1.Workflow)
	if !ok {
		cm, ok := res.ConfigMap.(*corev1.ConfigMap)
		if !ok {
			t.Fatalf("no ConfigMap: %T", res.ConfigMap)
		}
		return cm
	}
	if res.ConfigMap != nil {
		t.Errorf("an Argo Workflow creates its ConfigMap itself, yet the result has one to apply before it")
	}
	dag := wf.Spec.Templates[0].DAG
	first := dag.Tasks[0]
	for _, task := range dag.Tasks[1:] {
		if len(task.Dependencies) == 0 {
			t.Errorf("task %s does not wait for %s, which creates the ConfigMap it reads", task.Name, first.Name)
		}
	}
	tmpl := wf.GetTemplateByName(first.Template)
	if tmpl == nil || tmpl.Resource == nil || tmpl.Resource.Action != "apply" ||
		!slices.Contains(tmpl.Resource.Flags, "--server-side") {
		t.Fatalf("the first task %s does not apply the ConfigMap server-side: %+v", first.Name, tmpl)
	}
	doc := tmpl.Resource.Manifest
	// Each run that applies it is an owner, none the controller: the API
	// server allows one controller, and runs share the ConfigMap.
	var owned struct {
		Metadata struct{ OwnerReferences []map[string]any } `json:"metadata"`
	}
	if err := yaml.Unmarshal([]byte(doc), &owned); err != nil {
		t.Fatal(err)
	}
	if o := owned.Metadata.OwnerReferences; len(o) != 1 || o[0]["name"] != "{{workflow.name}}" ||
		o[0]["uid"] != "{{workflow.uid}}" || o[0]["controller"] != nil {
		t.Errorf("the ConfigMap's owner references %v, want the run, not as controller", o)
	}
	var cm corev1.ConfigMap
	if err := yaml.UnmarshalStrict([]byte(doc), &cm); err != nil || cm.Kind != "ConfigMap" {
		t.Fatalf("no ConfigMap: %v\n%s", err, doc)
	}
	return &cm
}
