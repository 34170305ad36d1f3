package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// validateAgainstCRD checks m against the openAPIV3Schema of the dask
// operator's CRD for its kind: types, required fields and unknown fields.
func validateAgainstCRD(t *testing.T, m map[string]any) {
	t.Helper()
	schema := crdSchema(t, strings.ToLower(m["kind"].(string)))
	obj := map[string]any{}
	for k, v := range m {
		if k != "apiVersion" && k != "kind" && k != "metadata" {
			obj[k] = v
		}
	}
	for _, e := range checkSchema(schema, obj, m["kind"].(string)) {
		t.Error(e)
	}
}

// checkSchema is the part of structural schema validation that catches
// what a compiler gets wrong: types, required fields and unknown fields.
func checkSchema(s map[string]any, v any, path string) []string {
	var errs []string
	if s["x-kubernetes-int-or-string"] == true || s["x-kubernetes-preserve-unknown-fields"] == true {
		return nil
	}
	switch s["type"] {
	case "object":
		obj, ok := v.(map[string]any)
		if !ok {
			return []string{path + ": want an object"}
		}
		props, _ := s["properties"].(map[string]any)
		for _, r := range asList(s["required"]) {
			if _, ok := obj[r.(string)]; !ok {
				errs = append(errs, path+"."+r.(string)+": required")
			}
		}
		for k, child := range obj {
			ps, ok := props[k].(map[string]any)
			if !ok {
				if extra, isMap := s["additionalProperties"].(map[string]any); isMap {
					errs = append(errs, checkSchema(extra, child, path+"."+k)...)
				} else if props != nil {
					errs = append(errs, path+"."+k+": unknown field")
				}
				continue
			}
			errs = append(errs, checkSchema(ps, child, path+"."+k)...)
		}
	case "array":
		list, ok := v.([]any)
		if !ok {
			return []string{path + ": want a list"}
		}
		items, _ := s["items"].(map[string]any)
		for i, child := range list {
			errs = append(errs, checkSchema(items, child, fmt.Sprintf("%s[%d]", path, i))...)
		}
	case "string":
		if _, ok := v.(string); !ok {
			errs = append(errs, path+": want a string")
		}
	case "integer":
		if f, ok := v.(float64); !ok || f != float64(int64(f)) {
			errs = append(errs, path+": want an integer")
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			errs = append(errs, path+": want a boolean")
		}
	}
	return errs
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

func crdSchema(t *testing.T, kind string) map[string]any {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(repoRoot, "..", "shared", "crds", "dask", kind+".yaml"))
	if err != nil {
		t.Skipf("skipping: %v", err)
	}
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
		t.Fatal(err)
	}
	return crd.Spec.Versions[0].Schema.OpenAPIV3Schema
}
