package argo_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	wfv4 "github.com/argoproj/argo-workflows/v4/pkg/apis/workflow/v1alpha1"
	"sigs.k8s.io/yaml"

	"github.com/mlcube-compile/mlcube-compile/backends/argo"
	"github.com/mlcube-compile/mlcube-compile/backends/argo/argotest"
	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/internal/enginetest"
)

// goldenFiles are the Argo golden files, at the repository's root.
func goldenFiles(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob("../../testdata/golden/argo/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no Argo golden files: %v", err)
	}
	return files
}

// Every Argo golden file, as written, decodes strictly into the types
// of Argo v3.7 and v4 and passes both versions' validators.
func TestGoldenPassesArgoV3AndV4(t *testing.T) {
	for _, f := range goldenFiles(t) {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := argotest.Check(string(raw)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
		checkNoRemovedFields(t, f, string(raw))
	}
}

// withSchedule is p as the command gives it for a CronWorkflow: with a
// schedule when it has none, and a value for every param, since no one
// passes -p to the runs a CronWorkflow starts.
func withSchedule(p *ir.Pipeline) *ir.Pipeline {
	q := *p
	if q.Schedule == nil {
		q.Schedule = &ir.Schedule{Cron: []string{"0 2 * * 1-5", "30 6 1,15 * *"}, Timezone: "Europe/Berlin",
			ConcurrencyPolicy: "Forbid"}
	}
	q.Params = append([]ir.Param(nil), p.Params...)
	for i := range q.Params {
		if q.Params[i].Default == nil {
			value := "value"
			q.Params[i].Default = &value
		}
	}
	return &q
}

// withNamespace is p with a namespace, which --emit-rbac needs.
func withNamespace(p *ir.Pipeline) *ir.Pipeline {
	if p.Namespace != "" {
		return p
	}
	q := *p
	q.Namespace = "ml"
	return &q
}

// emitKinds emits every example as every kind, with and without RBAC,
// and calls fn with each manifest.
func emitKinds(t *testing.T, fn func(t *testing.T, kind string, manifest string)) {
	for name, p := range enginetest.Pipelines(t) {
		for _, kind := range argo.Kinds {
			for _, rbac := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%s/rbac=%v", name, kind, rbac), func(t *testing.T) {
					q := p
					if kind == argo.KindCronWorkflow {
						q = withSchedule(q)
					}
					if rbac {
						q = withNamespace(q)
					}
					res, err := argo.Engine{}.Emit(q, emit.Options{Kind: string(kind), RBAC: rbac})
					if err == nil {
						err = res.Err()
					}
					if err != nil {
						t.Fatal(err)
					}
					out, err := emit.Encode(res.Objects()...)
					if err != nil {
						t.Fatal(err)
					}
					fn(t, string(kind), string(out))
				})
			}
		}
	}
}

// Every example, as each kind the backend emits, passes both versions'
// strict decoding and validators, and holds no field v4 removed.
func TestEveryKindPassesArgoV3AndV4(t *testing.T) {
	emitKinds(t, func(t *testing.T, kind, manifest string) {
		if err := argotest.Check(manifest); err != nil {
			t.Fatal(err)
		}
		checkNoRemovedFields(t, kind, manifest)
	})
}

// removedInV4 are the fields Argo v4 removed, deprecated since v3.6
// (docs/upgrading.md of v4.0, "Deprecations"), as YAML keys: the
// CronWorkflow's singular schedule, the singular mutex and semaphore of
// a synchronization block (a Workflow's or a template's), and a
// Workflow's numeric podPriority (already gone from v3.7's Go types).
var removedInV4 = []string{"schedule", "mutex", "semaphore", "podPriority"}

// checkNoRemovedFields fails when an Argo document of manifest has, at
// any depth, a key that v4 removed. Embedded manifests are strings and
// are not walked.
func checkNoRemovedFields(t *testing.T, name, manifest string) {
	t.Helper()
	docs, _, err := argotest.Documents(manifest)
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range docs {
		var tree any
		if err := yaml.Unmarshal([]byte(doc), &tree); err != nil {
			t.Fatal(err)
		}
		for _, key := range keysIn(tree) {
			for _, removed := range removedInV4 {
				if key == removed {
					t.Errorf("%s: emits %s:, which Argo v4 removed", name, key)
				}
			}
		}
	}
}

// keysIn lists every map key of a decoded YAML tree.
func keysIn(tree any) []string {
	var keys []string
	switch v := tree.(type) {
	case map[string]any:
		for k, child := range v {
			keys = append(keys, k)
			keys = append(keys, keysIn(child)...)
		}
	case []any:
		for _, child := range v {
			keys = append(keys, keysIn(child)...)
		}
	}
	sort.Strings(keys)
	return keys
}

// A CronWorkflow lists its schedules in spec.schedules, the form both
// versions take; v4's strict decoding refuses the singular
// spec.schedule that v3.7 still took, and v4's types have no field for
// it, so a CronWorkflow written with it would lose its schedule.
func TestCronWorkflowUsesSchedules(t *testing.T) {
	p := withSchedule(enginetest.Pipelines(t)["mnist"])
	res, err := argo.Engine{}.Emit(p, emit.Options{Kind: string(argo.KindCronWorkflow)})
	if err == nil {
		err = res.Err()
	}
	if err != nil {
		t.Fatal(err)
	}
	out, err := emit.Encode(res.Objects()...)
	if err != nil {
		t.Fatal(err)
	}
	obj, err := argotest.Decode(argotest.V4, "CronWorkflow", string(out))
	if err != nil {
		t.Fatal(err)
	}
	if got := obj.(*wfv4.CronWorkflow).Spec.Schedules; strings.Join(got, "|") != strings.Join(p.Schedule.Cron, "|") {
		t.Errorf("v4 reads schedules %q, want %q", got, p.Schedule.Cron)
	}
	if strings.Contains(string(out), "\n  schedule:") {
		t.Errorf("the CronWorkflow has a singular schedule:\n%s", out)
	}
}

// Each field v4 removed, put into output of ours, is refused by v4's
// strict decoding; v3.7 decodes and validates the same document (but
// podPriority, which v3.7's types already lack). So the checks above
// would catch the compiler emitting one.
func TestArgoV4RefusesRemovedFields(t *testing.T) {
	cron := emitted(t, argo.KindCronWorkflow)
	wf := emitted(t, argo.KindWorkflow)
	cases := []struct {
		name, kind, doc string
		v3Takes         bool
	}{
		{"schedule", "CronWorkflow", edit(t, cron, func(m map[string]any) {
			spec := m["spec"].(map[string]any)
			spec["schedule"] = spec["schedules"].([]any)[0]
			delete(spec, "schedules")
		}), true},
		{"synchronization.mutex", "Workflow", edit(t, wf, func(m map[string]any) {
			m["spec"].(map[string]any)["synchronization"] = map[string]any{"mutex": map[string]any{"name": "gpu"}}
		}), true},
		{"synchronization.semaphore", "Workflow", edit(t, wf, func(m map[string]any) {
			m["spec"].(map[string]any)["synchronization"] = map[string]any{"semaphore": map[string]any{
				"configMapKeyRef": map[string]any{"name": "limits", "key": "gpu"},
			}}
		}), true},
		{"templates[].synchronization.mutex", "Workflow", edit(t, wf, func(m map[string]any) {
			tmpl := m["spec"].(map[string]any)["templates"].([]any)[1].(map[string]any)
			tmpl["synchronization"] = map[string]any{"mutex": map[string]any{"name": "gpu"}}
		}), true},
		{"podPriority", "Workflow", edit(t, wf, func(m map[string]any) {
			m["spec"].(map[string]any)["podPriority"] = 10
		}), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := argotest.Decode(argotest.V4, c.kind, c.doc)
			if err == nil || !strings.Contains(err.Error(), "unknown field") {
				t.Errorf("v4 decodes it strictly: %v", err)
			}
			obj, err := argotest.Decode(argotest.V3, c.kind, c.doc)
			if !c.v3Takes {
				if err == nil {
					t.Errorf("v3.7 decodes it strictly")
				}
				return
			}
			if err != nil {
				t.Fatalf("v3.7 refuses it: %v", err)
			}
			if err := argo.WithValidator(func() error { return argotest.ValidateV3(obj) }); err != nil {
				t.Errorf("v3.7's validator refuses it: %v", err)
			}
		})
	}
}

// emitted is the mnist example as kind, encoded.
func emitted(t *testing.T, kind argo.Kind) string {
	t.Helper()
	p := enginetest.Pipelines(t)["mnist"]
	if kind == argo.KindCronWorkflow {
		p = withSchedule(p)
	}
	res, err := argo.Engine{}.Emit(p, emit.Options{Kind: string(kind)})
	if err == nil {
		err = res.Err()
	}
	if err != nil {
		t.Fatal(err)
	}
	out, err := emit.YAML(res.Run)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// edit decodes doc, applies fn and encodes it again.
func edit(t *testing.T, doc string, fn func(map[string]any)) string {
	t.Helper()
	var m map[string]any
	if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
		t.Fatal(err)
	}
	fn(m)
	out, err := yaml.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}
