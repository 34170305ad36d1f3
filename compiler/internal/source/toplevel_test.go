package source

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRawTopLevel reads the top-level keys of YAML that does not parse:
// a key's plain value, and whether a mapping follows it (a flow mapping,
// or indented keys, not list items).
func TestRawTopLevel(t *testing.T) {
	for src, want := range map[string][]RawKey{
		"steps:\n  train: {task: train\n":    {{Name: "steps", Mapping: true, Line: 1}},
		"steps:\n  - run: make\n":            {{Name: "steps", Line: 1}},
		"steps:\n\n  # a comment\n  a: {}\n": {{Name: "steps", Mapping: true, Line: 1}},
		"schema_type: 'mlcube_invoke' # 1.0\nx: [\n": {{Name: "schema_type", Value: "mlcube_invoke", Line: 1},
			{Name: "x", Value: "[", Line: 2}},
		"tasks: {train: {}\nname: x\r\n": {{Name: "tasks", Value: "{train: {}", Mapping: true, Line: 1},
			{Name: "name", Value: "x", Line: 2}},
		"  indented: 1\n- item\n": nil,
		// A quoted key is a key, as YAML reads it (the hint reader's rules).
		"\"quoted\": 2 # c\n'kind': Pod\n": {{Name: "quoted", Value: "2", Line: 1},
			{Name: "kind", Value: "Pod", Line: 2}},
		"namespace: \"ml-team\nimage: busybox\n": {{Name: "namespace", Value: "ml-team", Line: 1},
			{Name: "image", Value: "busybox", Line: 2}},
	} {
		if diff := cmp.Diff(want, RawTopLevel([]byte(src))); diff != "" {
			t.Errorf("%q (-want +got):\n%s", src, diff)
		}
	}
}
