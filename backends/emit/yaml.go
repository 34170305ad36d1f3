package emit

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
		doc, err := YAML(obj)
		if err != nil {
			return nil, fmt.Errorf("encoding object %d: %w", i, err)
		}
		if i > 0 {
			out.WriteString("---\n")
		}
		out.WriteString(doc)
	}
	return out.Bytes(), nil
}

// EncodeJSON writes the objects as indented JSON, as kubectl get -o json
// prints them: one object as itself, several as the items of a v1 List,
// in the order given, which kubectl create -f takes as it takes the YAML
// stream.
func EncodeJSON(objs ...any) ([]byte, error) {
	items := make([]any, len(objs))
	for i, obj := range objs {
		m, err := clean(obj)
		if err != nil {
			return nil, fmt.Errorf("encoding object %d: %w", i, err)
		}
		items[i] = m
	}
	var doc any = map[string]any{"apiVersion": "v1", "kind": "List", "items": items}
	if len(items) == 1 {
		doc = items[0]
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	return append(out, '\n'), err
}

// YAML writes one object as YAML, without what only the API server sets.
func YAML(obj any) (string, error) {
	m, err := clean(obj)
	if err != nil {
		return "", err
	}
	doc, err := yaml.Marshal(m)
	return string(doc), err
}

// JSON writes one object as one line of JSON, without what only the API
// server sets.
func JSON(obj any) (string, error) {
	m, err := clean(obj)
	if err != nil {
		return "", err
	}
	raw, err := json.Marshal(m)
	return string(raw), err
}

// clean turns obj into plain maps and drops status and empty noise.
func clean(obj any) (map[string]any, error) {
	raw, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	delete(m, "status")
	dropServerFields(m)
	return m, nil
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
