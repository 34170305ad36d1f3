package schema

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// undescribed returns the JSON pointer of every property, definition and
// root in schema s that has no description, which editors show when the
// cursor is on a key.
func undescribed(s any, at string) []string {
	var out []string
	switch s := s.(type) {
	case map[string]any:
		if at == "" && !hasDescription(s) {
			out = append(out, "(root)")
		}
		for _, kw := range []string{"properties", "$defs"} {
			m, _ := s[kw].(map[string]any)
			for name, p := range m {
				if !hasDescription(p) {
					out = append(out, at+"/"+kw+"/"+name)
				}
			}
		}
		for k, v := range s {
			out = append(out, undescribed(v, at+"/"+k)...)
		}
	case []any:
		for i, v := range s {
			out = append(out, undescribed(v, at+"/"+strconv.Itoa(i))...)
		}
	}
	return out
}

// descriptions returns every description in schema s.
func descriptions(s any) []string {
	var out []string
	switch s := s.(type) {
	case map[string]any:
		for k, v := range s {
			if d, ok := v.(string); ok && k == "description" {
				out = append(out, d)
			}
			out = append(out, descriptions(v)...)
		}
	case []any:
		for _, v := range s {
			out = append(out, descriptions(v)...)
		}
	}
	return out
}

func hasDescription(s any) bool {
	m, _ := s.(map[string]any)
	d, _ := m["description"].(string)
	return strings.TrimSpace(d) != ""
}

// TestEveryFieldIsDescribed checks that every property and definition of
// every exported JSON Schema has a description: the comment above its
// field in the .cue files, which CUE's generator carries over.
func TestEveryFieldIsDescribed(t *testing.T) {
	s, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range Export {
		raw, err := s.JSONSchema(e.Kind, e.Title)
		if err != nil {
			t.Fatal(err)
		}
		var doc any
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatal(err)
		}
		for _, d := range descriptions(doc) {
			if strings.Contains(strings.ReplaceAll(d, "\n\n", ""), "\n") {
				t.Errorf("%s: a description is wrapped as its comment is: %q", e.Name, d)
			}
		}
		missing := undescribed(doc, "")
		sort.Strings(missing)
		for _, m := range missing {
			t.Errorf("%s: %s has no description: write a comment above its field in schema/*.cue", e.Name, m)
		}
	}
}

func TestUndescribedFindsEveryPlace(t *testing.T) {
	doc := map[string]any{
		"properties": map[string]any{
			"a": map[string]any{"description": "A", "properties": map[string]any{"b": map[string]any{"type": "string"}}},
			"c": map[string]any{"$ref": "#/$defs/D"},
		},
		"$defs": map[string]any{
			"D": map[string]any{"description": " ", "anyOf": []any{map[string]any{"properties": map[string]any{"e": true}}}},
		},
	}
	got := undescribed(doc, "")
	sort.Strings(got)
	want := "(root) /$defs/D /$defs/D/anyOf/0/properties/e /properties/a/properties/b /properties/c"
	if strings.Join(got, " ") != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
