package enginetest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// CheckCRD checks m against the openAPIV3Schema of the dask operator's
// CRD for its kind: types, required fields and unknown fields. The CRDs
// are read from ../shared/crds/dask beside the repository; without them
// the test is skipped.
func CheckCRD(t testing.TB, m map[string]any) {
	t.Helper()
	schema := CRDSchema(t, strings.ToLower(m["kind"].(string)))
	obj := map[string]any{}
	for k, v := range m {
		if k != "apiVersion" && k != "kind" && k != "metadata" {
			obj[k] = v
		}
	}
	for _, e := range CheckSchema(schema, obj, m["kind"].(string)) {
		t.Error(e)
	}
}

// CheckSchema is the part of structural schema validation that catches
// what a compiler gets wrong: types, required fields and unknown fields.
// It returns one message per mistake, each at its path under path.
func CheckSchema(s map[string]any, v any, path string) []string {
	if s["x-kubernetes-int-or-string"] == true || s["x-kubernetes-preserve-unknown-fields"] == true {
		return nil
	}
	switch s["type"] {
	case "object":
		return checkObject(s, v, path)
	case "array":
		list, ok := v.([]any)
		if !ok {
			return []string{path + ": want a list"}
		}
		var errs []string
		items, _ := s["items"].(map[string]any)
		for i, child := range list {
			errs = append(errs, CheckSchema(items, child, fmt.Sprintf("%s[%d]", path, i))...)
		}
		return errs
	case "string":
		if _, ok := v.(string); !ok {
			return []string{path + ": want a string"}
		}
	case "integer":
		if f, ok := v.(float64); !ok || f != float64(int64(f)) {
			return []string{path + ": want an integer"}
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return []string{path + ": want a boolean"}
		}
	}
	return nil
}

// checkObject is CheckSchema for an object's schema.
func checkObject(s map[string]any, v any, path string) []string {
	obj, ok := v.(map[string]any)
	if !ok {
		return []string{path + ": want an object"}
	}
	var errs []string
	props, _ := s["properties"].(map[string]any)
	required, _ := s["required"].([]any)
	for _, r := range required {
		if _, ok := obj[r.(string)]; !ok {
			errs = append(errs, path+"."+r.(string)+": required")
		}
	}
	for k, child := range obj {
		ps, ok := props[k].(map[string]any)
		if !ok {
			if extra, isMap := s["additionalProperties"].(map[string]any); isMap {
				errs = append(errs, CheckSchema(extra, child, path+"."+k)...)
			} else if props != nil {
				errs = append(errs, path+"."+k+": unknown field")
			}
			continue
		}
		errs = append(errs, CheckSchema(ps, child, path+"."+k)...)
	}
	return errs
}

// CRDSchema is the openAPIV3Schema of the dask operator's CRD of kind
// (lower case: daskjob), from ../shared/crds/dask beside the repository;
// without it the test is skipped.
func CRDSchema(t testing.TB, kind string) map[string]any {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(Root(t), "..", "shared", "crds", "dask", kind+".yaml"))
	if err != nil {
		t.Skipf("skipping: %v", err)
	}
	return crdSchema(t, raw)
}

// crdSchema is the openAPIV3Schema of the first version of the CRD raw.
func crdSchema(t testing.TB, raw []byte) map[string]any {
	t.Helper()
	s, err := openAPISchema(raw)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// openAPISchema is the openAPIV3Schema of the first version of the CRD
// raw.
func openAPISchema(raw []byte) (map[string]any, error) {
	var crd struct {
		Spec struct {
			Versions []struct {
				Schema struct {
					OpenAPIV3Schema map[string]any `json:"openAPIV3Schema"`
				} `json:"schema"`
			} `json:"versions"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(raw, &crd); err != nil {
		return nil, err
	}
	return crd.Spec.Versions[0].Schema.OpenAPIV3Schema, nil
}
