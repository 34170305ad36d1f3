// Package manifest writes Kubernetes objects as one multi-document YAML
// stream, the same bytes for the same objects.
package manifest

import (
	"bytes"
	"encoding/json"
	"fmt"

	"sigs.k8s.io/yaml"
)

// Encode writes each object as a YAML document, in the order given. Fields
// that only the API server sets (status, creationTimestamp) are left out.
func Encode(objs ...any) ([]byte, error) {
	var out bytes.Buffer
	for i, obj := range objs {
		raw, err := json.Marshal(obj)
		if err != nil {
			return nil, fmt.Errorf("encoding object %d: %w", i, err)
		}
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, err
		}
		delete(m, "status")
		dropServerFields(m)
		doc, err := yaml.Marshal(m)
		if err != nil {
			return nil, fmt.Errorf("encoding object %d: %w", i, err)
		}
		if i > 0 {
			out.WriteString("---\n")
		}
		out.Write(doc)
	}
	return out.Bytes(), nil
}

// emptyNoise are fields that Go's object types write as {} when unset,
// where {} means nothing. (An emptyDir: {} means something and is kept.)
var emptyNoise = map[string]bool{
	"status": true, "arguments": true, "inputs": true, "outputs": true, "metadata": true, "resources": true,
	"computeResources": true, "taskRunTemplate": true,
}

// nullNoise are fields that Go's object types write as null when unset.
var nullNoise = map[string]bool{"creationTimestamp": true, "spec": true}

// dropServerFields removes null and empty noise at any depth: Go's object
// types write it, and claim templates carry it too.
func dropServerFields(v any) {
	switch t := v.(type) {
	case map[string]any:
		for k, child := range t {
			if child == nil && nullNoise[k] {
				delete(t, k)
				continue
			}
			dropServerFields(child)
			if m, ok := child.(map[string]any); ok && len(m) == 0 && emptyNoise[k] {
				delete(t, k)
			}
		}
	case []any:
		for _, child := range t {
			dropServerFields(child)
		}
	}
}
