package argo

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"sigs.k8s.io/yaml"

	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// V4CRD is the schema of one of Argo v4.0.2's full CRDs, the ones its
// release manifests install, read from the module cache: what a v4
// cluster's API server checks an object against on create.
type V4CRD struct {
	// OpenAPI is the CRD's openAPIV3Schema, as written.
	OpenAPI map[string]any
	schema  *jsonschema.Schema
}

var (
	v4CRDsMu sync.Mutex
	v4CRDs   = map[string]*V4CRD{}
)

// v4CRDFiles are the CRDs of the kinds the compiler emits.
var v4CRDFiles = map[string]string{
	"Workflow":         "argoproj.io_workflows.yaml",
	"WorkflowTemplate": "argoproj.io_workflowtemplates.yaml",
	"CronWorkflow":     "argoproj.io_cronworkflows.yaml",
}

// LoadV4CRD reads and compiles the full CRD of an Argo kind, once.
func LoadV4CRD(t testing.TB, kind string) *V4CRD {
	t.Helper()
	v4CRDsMu.Lock()
	defer v4CRDsMu.Unlock()
	if c, ok := v4CRDs[kind]; ok {
		return c
	}
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/argoproj/argo-workflows/v4").Output()
	if err != nil {
		t.Fatalf("finding Argo v4's module: %v", err)
	}
	file := filepath.Join(strings.TrimSpace(string(out)), "manifests", "base", "crds", "full", v4CRDFiles[kind])
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var crd struct {
		Spec struct {
			Versions []struct {
				Name   string
				Schema struct {
					OpenAPIV3Schema map[string]any `json:"openAPIV3Schema"`
				}
			}
		}
	}
	if err := yaml.Unmarshal(raw, &crd); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	if len(crd.Spec.Versions) != 1 || crd.Spec.Versions[0].Name != "v1alpha1" {
		t.Fatalf("%s: want one version, v1alpha1", file)
	}
	openAPI := crd.Spec.Versions[0].Schema.OpenAPIV3Schema
	c := jsonschema.NewCompiler()
	if err := c.AddResource("crd.json", toJSONSchema(openAPI)); err != nil {
		t.Fatal(err)
	}
	schema, err := c.Compile("crd.json")
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	crdSchema := &V4CRD{OpenAPI: openAPI, schema: schema}
	v4CRDs[kind] = crdSchema
	return crdSchema
}

// toJSONSchema is an OpenAPI schema of a CRD as JSON Schema: an
// int-or-string takes either, a nullable field null too. What JSON
// Schema cannot say is left out of the check: CEL rules
// (x-kubernetes-validations, whose rules v3.7's validator checks too)
// and the uniqueness of list-map keys (the validator checks names).
func toJSONSchema(node any) any {
	switch v := node.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, child := range v {
			switch k {
			case "properties":
				props := map[string]any{}
				for name, p := range child.(map[string]any) {
					props[name] = toJSONSchema(p)
				}
				out[k] = props
			case "x-kubernetes-validations", "default", "example":
			default:
				out[k] = toJSONSchema(child)
			}
		}
		if v["x-kubernetes-int-or-string"] == true {
			out["anyOf"] = []any{map[string]any{"type": "integer"}, map[string]any{"type": "string"}}
		}
		if v["nullable"] == true {
			if typ, ok := v["type"].(string); ok {
				out["type"] = []any{typ, "null"}
			}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, child := range v {
			out[i] = toJSONSchema(child)
		}
		return out
	}
	return node
}

// Validate checks a YAML document of the CRD's kind against its schema.
func (c *V4CRD) Validate(doc string) error {
	raw, err := yaml.YAMLToJSON([]byte(doc))
	if err != nil {
		return err
	}
	value, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	return c.schema.Validate(value)
}

// At is the OpenAPI schema at a path of field names, through arrays'
// items where the path says [].
func (c *V4CRD) At(t testing.TB, path ...string) map[string]any {
	t.Helper()
	node := c.OpenAPI
	for _, name := range path {
		var next any
		if name == "[]" {
			next = node["items"]
		} else if props, ok := node["properties"].(map[string]any); ok {
			next = props[name]
		}
		m, ok := next.(map[string]any)
		if !ok {
			t.Fatalf("the CRD has no %s", strings.Join(path, "."))
		}
		node = m
	}
	return node
}

// skipShort skips a test that reads Argo v4's full CRDs, 7 MB of schema
// compiled once per kind, under -short.
func skipShort(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped with -short: reads and compiles Argo v4's full CRDs (7 MB of schema)")
	}
}

// The caps and the schedule form the compiler warns about are the ones
// Argo v4.0.7's full CRDs set.
func TestV4CRDLimitsAreTheCRDs(t *testing.T) {
	skipShort(t)
	wf := LoadV4CRD(t, "Workflow")
	checks := []struct {
		path []string
		key  string
		want any
	}{
		{[]string{"spec", "templates"}, "maxItems", v4MaxTemplates},
		{[]string{"spec", "templates", "[]", "dag", "tasks"}, "maxItems", v4MaxDAGTasks},
		{[]string{"spec", "templates", "[]", "inputs", "parameters"}, "maxItems", v4MaxInputParameters},
	}
	for _, c := range checks {
		if got := wf.At(t, c.path...)[c.key]; fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s %s: the CRD says %v, the compiler %v", strings.Join(c.path, "."), c.key, got, c.want)
		}
	}
	cron := LoadV4CRD(t, "CronWorkflow")
	if got := cron.At(t, "spec", "schedules", "[]")["pattern"]; got != v4Schedule.String() {
		t.Errorf("schedules pattern: the CRD says %v, the compiler %v", got, v4Schedule)
	}
}

// v4Spec is a spec of n templates, the first a DAG of tasks tasks.
func v4Spec(n, tasks int) wfv1.WorkflowSpec {
	spec := wfv1.WorkflowSpec{Templates: []wfv1.Template{{Name: "main", DAG: &wfv1.DAGTemplate{}}}}
	for i := 0; i < tasks; i++ {
		spec.Templates[0].DAG.Tasks = append(spec.Templates[0].DAG.Tasks,
			wfv1.DAGTask{Name: fmt.Sprintf("t%d", i), Template: "t"})
	}
	for i := 1; i < n; i++ {
		spec.Templates = append(spec.Templates, wfv1.Template{Name: fmt.Sprintf("t%d", i)})
	}
	return spec
}

// The compiler warns about what v4's CRDs refuse, at the steps or the
// schedule, and about nothing at their caps.
func TestV4CRDWarnings(t *testing.T) {
	at := diag.At(diag.Pos{File: "p.yaml", Line: 1, Col: 1})
	p := &ir.Pipeline{Spec: at, Schedule: &ir.Schedule{Cron: []string{"0 2 * * 1-5", "@daily", "@every 1h30m",
		"*/5 * * * *", "0 2 * * MON-FRI", "TZ=UTC 0 2 * * *", "0 0 1 JAN *", "CRON_TZ=Europe/Paris 0 3 * * *"}}}
	cases := []struct {
		name string
		spec wfv1.WorkflowSpec
		kind Kind
		want []string
	}{
		{"at the caps", v4Spec(v4MaxTemplates, v4MaxDAGTasks), KindWorkflow, nil},
		{"templates", v4Spec(v4MaxTemplates+1, 1), KindWorkflowTemplate,
			[]string{"steps: the WorkflowTemplate has 201 templates, and Argo v4's full CRDs take at most 200"}},
		{"tasks", v4Spec(1, v4MaxDAGTasks+1), KindWorkflow,
			[]string{"steps: the Workflow's DAG main has 201 tasks, and Argo v4's full CRDs"}},
		{"schedules", v4Spec(1, 1), KindCronWorkflow, []string{
			`schedule: Argo v4's full CRDs refuse the schedule "TZ=UTC 0 2 * * *"`,
			`schedule: Argo v4's full CRDs refuse the schedule "CRON_TZ=Europe/Paris 0 3 * * *"`,
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := v4CRDWarnings(p, c.spec, c.kind)
			if len(got) != len(c.want) {
				t.Fatalf("got %d warnings, want %d: %v", len(got), len(c.want), got)
			}
			for i, w := range c.want {
				if s := got[i].String(); !strings.Contains(s, w) {
					t.Errorf("warning %d: %s\nwant it to contain: %s", i, s, w)
				}
			}
		})
	}
}
