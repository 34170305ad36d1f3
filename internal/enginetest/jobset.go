package enginetest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	jobset "sigs.k8s.io/jobset/api/jobset/v1alpha2"
	"sigs.k8s.io/yaml"
)

// JobSet decodes m strictly as JobSet's type and checks it as the API
// server checks a custom resource before JobSet's webhooks see it,
// against the JobSet CRD of the module the project requires
// (config/components/crd/bases): CheckSchema's types, required and
// unknown fields, then the CRD's defaults, the whole OpenAPI schema
// (enums, bounds) and its CEL rules (x-kubernetes-validations). The
// returned JobSet is m as decoded, without the defaults.
func JobSet(t testing.TB, m map[string]any) *jobset.JobSet {
	t.Helper()
	if m["apiVersion"] != jobset.GroupVersion.String() || m["kind"] != "JobSet" {
		t.Errorf("a JobSet is %s, kind JobSet, not %v, kind %v", jobset.GroupVersion, m["apiVersion"], m["kind"])
	}
	raw, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var js jobset.JobSet
	if err := yaml.UnmarshalStrict(raw, &js); err != nil {
		t.Fatalf("JobSet does not decode as JobSet's type: %v", err)
	}
	for _, e := range jobSetCRD(t).errors(m, raw) {
		t.Error(e)
	}
	return &js
}

// OneJobSet is the one JobSet that run creates, checked.
func OneJobSet(t testing.TB, run any) *jobset.JobSet {
	t.Helper()
	jobs := Jobs(t, run)
	if len(jobs) != 1 || jobs[0]["kind"] != "JobSet" {
		t.Fatalf("want one JobSet, got %d jobs", len(jobs))
	}
	return JobSet(t, jobs[0])
}

// jobSetSchema is the JobSet CRD's schema, as CheckSchema reads it and as
// the API server checks a JobSet with it.
type jobSetSchema struct {
	schema     map[string]any
	structural *structuralschema.Structural
	validator  apiservervalidation.SchemaCreateValidator
	cel        *cel.Validator
}

// errors are the mistakes in m, a JobSet whose JSON is raw: CheckSchema's,
// then, on a copy decoded as the API server decodes it (integers as
// int64, which CEL needs) with the CRD's defaults applied, the whole
// schema's and the CEL rules', as the API server checks at creation.
func (s *jobSetSchema) errors(m map[string]any, raw []byte) []string {
	obj := map[string]any{}
	for k, v := range m {
		if k != "apiVersion" && k != "kind" && k != "metadata" {
			obj[k] = v
		}
	}
	msgs := CheckSchema(s.schema, obj, "JobSet")
	var tree map[string]any
	if err := utiljson.Unmarshal(raw, &tree); err != nil {
		return append(msgs, err.Error())
	}
	defaulting.Default(tree, s.structural)
	for _, e := range apiservervalidation.ValidateCustomResource(nil, tree, s.validator) {
		msgs = append(msgs, "JobSet fails its CRD's validation: "+e.Error())
	}
	if s.cel != nil {
		errs, _ := s.cel.Validate(context.Background(), nil, s.structural, tree, nil, celconfig.RuntimeCELCostBudget)
		for _, e := range errs {
			msgs = append(msgs, "JobSet fails its CRD's rules: "+e.Error())
		}
	}
	return msgs
}

// jobSetCRD is the JobSet CRD's schema, read and compiled once.
func jobSetCRD(t testing.TB) *jobSetSchema {
	t.Helper()
	s, err := jobSetCRDOnce()
	if err != nil {
		t.Fatalf("the JobSet CRD: %v", err)
	}
	return s
}

var jobSetCRDOnce = sync.OnceValues(func() (*jobSetSchema, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "sigs.k8s.io/jobset").Output()
	if err != nil {
		return nil, fmt.Errorf("finding the JobSet module: %w", err)
	}
	raw, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "config", "components", "crd", "bases",
		"jobset.x-k8s.io_jobsets.yaml"))
	if err != nil {
		return nil, err
	}
	var crd apiextv1.CustomResourceDefinition
	if err := yaml.Unmarshal(raw, &crd); err != nil {
		return nil, err
	}
	tree, err := openAPISchema(raw)
	if err != nil {
		return nil, err
	}
	var internal apiextensions.JSONSchemaProps
	err = apiextv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(
		crd.Spec.Versions[0].Schema.OpenAPIV3Schema, &internal, nil)
	if err != nil {
		return nil, err
	}
	s := &jobSetSchema{schema: tree}
	if s.structural, err = structuralschema.NewStructural(&internal); err != nil {
		return nil, err
	}
	if s.validator, _, err = apiservervalidation.NewSchemaValidator(&internal); err != nil {
		return nil, err
	}
	s.cel = cel.NewValidator(s.structural, true, celconfig.PerCallLimit)
	return s, nil
})
