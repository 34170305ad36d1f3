package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"sigs.k8s.io/yaml"
)

// compileRaw compiles a JSON Schema given as a map.
func compileRaw(t *testing.T, name string, doc map[string]any) *jsonschema.Schema {
	t.Helper()
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(name, v); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(name)
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

// mlcubeDocuments returns every mlcube.yaml of the cubes, the examples
// and the bad corpus as JSON values, each also with schema_type added,
// removed and changed, and values that are not objects.
func mlcubeDocuments(t *testing.T) map[string]any {
	t.Helper()
	out := map[string]any{"null": nil, "list": []any{}, "string": "x", "number": 1.0, "empty": map[string]any{}}
	for _, f := range specFiles(t, "mlcube.yaml", sharedCubes, sharedCubes10, "../examples", "../testdata/bad") {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var doc any
		if err := yaml.Unmarshal(src, &doc); err != nil {
			continue // a bad case that is not YAML
		}
		out[f] = doc
		m, ok := doc.(map[string]any)
		if !ok {
			continue
		}
		for _, st := range []any{nil, "mlcube_root", "mlcube_platform", 1.0} {
			c := map[string]any{}
			for k, v := range m {
				c[k] = v
			}
			delete(c, "schema_type")
			if st != nil {
				c["schema_type"] = st
			}
			out[fmt.Sprintf("%s with schema_type %v", f, st)] = c
		}
	}
	return out
}

// TestDiscriminatedRootAcceptsWhatAnyOfDid checks that the mlcube schema's
// if/then/else on schema_type accepts and refuses the same documents as
// the anyOf CUE's generator wrote.
func TestDiscriminatedRootAcceptsWhatAnyOfDid(t *testing.T) {
	s, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := s.JSONSchema(MLCubeFile, "mlcube")
	if err != nil {
		t.Fatal(err)
	}
	var tagged, anyOf map[string]any
	if err := json.Unmarshal(raw, &tagged); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &anyOf); err != nil {
		t.Fatal(err)
	}
	if tagged["if"] == nil || tagged["anyOf"] != nil {
		t.Fatalf("the mlcube schema's root is not if/then/else: %s", raw)
	}
	anyOf["anyOf"] = []any{anyOf["then"], anyOf["else"]}
	delete(anyOf, "if")
	delete(anyOf, "then")
	delete(anyOf, "else")
	a, b := compileRaw(t, "tagged.json", tagged), compileRaw(t, "anyof.json", anyOf)
	docs := mlcubeDocuments(t)
	if len(docs) < 100 {
		t.Fatalf("only %d documents", len(docs))
	}
	accepted := 0
	for name, doc := range docs {
		errA, errB := a.Validate(doc), b.Validate(doc)
		if (errA == nil) != (errB == nil) {
			t.Errorf("%s: if/then/else says %v, anyOf says %v", name, errA, errB)
		}
		if errA == nil {
			accepted++
		}
	}
	if accepted < 20 || accepted > len(docs)-20 {
		t.Errorf("%d of %d documents accepted: the corpus does not test both ways", accepted, len(docs))
	}
}

func TestDiscriminateRefusesWhatItCannotTellApart(t *testing.T) {
	closed := func(props ...string) map[string]any {
		p := map[string]any{}
		for _, n := range props {
			p[n] = true
		}
		return map[string]any{"type": "object", "additionalProperties": false, "properties": p}
	}
	tagged := func() map[string]any {
		d := closed("tag", "a")
		d["required"] = []any{"tag"}
		return d
	}
	for name, c := range map[string]struct {
		other map[string]any
		alts  []any
		want  string
	}{
		"closed":        {closed("b"), nil, ""},
		"open":          {map[string]any{"type": "object"}, nil, `"tag" is not required by one`},
		"names the tag": {closed("b", "tag"), nil, `"tag" is not required by one`},
		"patterns": {map[string]any{"type": "object", "additionalProperties": false,
			"patternProperties": map[string]any{"^t": true}}, nil, `"tag" is not required by one`},
		"not only objects": {map[string]any{"additionalProperties": false}, nil, `"tag" is not required by one`},
		"three": {closed("b"), []any{map[string]any{"$ref": "#/$defs/A"}, map[string]any{"$ref": "#/$defs/B"},
			map[string]any{"$ref": "#/$defs/B"}}, "want an anyOf of two"},
		"inline": {closed("b"), []any{map[string]any{"$ref": "#/$defs/A"}, map[string]any{"type": "object"}},
			"want each alternative"},
	} {
		alts := c.alts
		if alts == nil {
			alts = []any{map[string]any{"$ref": "#/$defs/B"}, map[string]any{"$ref": "#/$defs/A"}}
		}
		s := map[string]any{"anyOf": alts, "$defs": map[string]any{"A": tagged(), "B": c.other}}
		err := discriminate(s, "tag")
		if (err == nil) != (c.want == "") || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: got %v, want %q", name, err, c.want)
			continue
		}
		if err == nil && (s["anyOf"] != nil ||
			fmt.Sprint(s["then"], s["else"]) != "map[$ref:#/$defs/A] map[$ref:#/$defs/B]") {
			t.Errorf("%s: got %v", name, s)
		}
	}
}
