package schema

// The spec reference, docs/reference/<kind>.md, is rendered from the JSON
// Schema that `mlcube-compile schema --format jsonschema --kind K` prints
// (itself generated from the CUE), so it cannot drift from what is
// checked. TestReferenceDocs fails when a committed page is stale;
// -update (make golden) rewrites them.

import (
	"encoding/json"
	"flag"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/mlcube-compile/mlcube-compile/internal/golden"
)

var update = flag.Bool("update", false, "rewrite docs/reference")

const referenceDir = "../docs/reference"

func TestReferenceDocs(t *testing.T) {
	s, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	pages := map[string]string{"README.md": referenceIndex()}
	for _, e := range Export {
		js, err := s.JSONSchema(e.Kind, e.Title)
		if err != nil {
			t.Fatal(err)
		}
		var root map[string]any
		if err := json.Unmarshal(js, &root); err != nil {
			t.Fatal(err)
		}
		pages[e.Name+".md"] = renderReference(e.Name, root)
	}
	for name, want := range pages {
		golden.Compare(t, []byte(want), filepath.Join(referenceDir, name), *update)
	}
}

const generatedNote = "<!-- Generated from the CUE schemas by TestReferenceDocs (schema/reference_test.go); do not " +
	"edit. Rewrite with make golden. -->\n\n"

func referenceIndex() string {
	var b strings.Builder
	b.WriteString(generatedNote + "# Spec reference\n\n")
	b.WriteString("One page for each kind of spec file, generated from the CUE schemas in `schema/*.cue` (through the\n")
	b.WriteString("JSON Schema that `mlcube-compile schema --format jsonschema --kind KIND` prints), so it says " +
		"what is checked.\n")
	b.WriteString("How the files are read and combined is in [specs.md](../specs.md).\n\n")
	for _, e := range Export {
		fmt.Fprintf(&b, "- [%s](%s.md): %s\n", e.Name, e.Name, e.Title)
	}
	return b.String()
}

// renderReference renders one kind's JSON Schema as Markdown.
func renderReference(name string, root map[string]any) string {
	var b strings.Builder
	b.WriteString(generatedNote)
	fmt.Fprintf(&b, "# %s\n\n", root["title"])
	fmt.Fprintf(&b, "`mlcube-compile schema --format jsonschema --kind %s` prints this schema for editors.\n\n", name)
	if d, ok := root["description"].(string); ok {
		b.WriteString(d + "\n\n")
	}
	if cond, ok := root["if"].(map[string]any); ok {
		fmt.Fprintf(&b, "A file with %s is checked as %s; any other as %s.\n\n",
			keyList(cond["required"]), typeOf(root["then"]), typeOf(root["else"]))
	}
	writeObject(&b, "## Fields", root)
	defs, _ := root["$defs"].(map[string]any)
	if len(defs) > 0 {
		b.WriteString("## Definitions\n\n")
	}
	for _, k := range sortedMapKeys(defs) {
		def := defs[k].(map[string]any)
		fmt.Fprintf(&b, "### %s\n\n", k)
		if d, ok := def["description"].(string); ok {
			b.WriteString(d + "\n\n")
		}
		if _, ok := def["properties"]; !ok {
			fmt.Fprintf(&b, "Type: %s\n\n", typeOf(def))
			continue
		}
		writeObject(&b, "", def)
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// writeObject writes a table of an object's fields, nested inline objects
// flattened into dotted paths, under heading (none if empty).
func writeObject(b *strings.Builder, heading string, s map[string]any) {
	var rows []string
	collectRows(&rows, "", s)
	if len(rows) == 0 {
		if ap, ok := s["additionalProperties"]; ok && ap != false && heading != "" {
			fmt.Fprintf(b, "%s\n\nAny key; each value: %s.\n\n", heading, typeOf(ap))
		}
		return
	}
	if heading != "" {
		b.WriteString(heading + "\n\n")
	}
	b.WriteString("| field | type | required | description |\n| --- | --- | --- | --- |\n")
	for _, r := range rows {
		b.WriteString(r + "\n")
	}
	if s["additionalProperties"] == false {
		b.WriteString("\nNo other field is allowed.\n")
	}
	b.WriteString("\n")
}

func collectRows(rows *[]string, prefix string, s map[string]any) {
	props, _ := s["properties"].(map[string]any)
	required := map[string]bool{}
	if req, ok := s["required"].([]any); ok {
		for _, r := range req {
			required[r.(string)] = true
		}
	}
	for _, k := range sortedMapKeys(props) {
		p, _ := props[k].(map[string]any)
		path := prefix + k
		req := ""
		if required[k] {
			req = "yes"
		}
		desc, _ := p["description"].(string)
		*rows = append(*rows, fmt.Sprintf("| `%s` | %s | %s | %s |", path, cell(typeOf(p)), req, cell(desc)))
		if _, ok := p["properties"]; ok {
			collectRows(rows, path+".", p)
		}
		if items, ok := p["items"].(map[string]any); ok && items["properties"] != nil {
			collectRows(rows, path+"[].", items)
		}
		if ap, ok := p["additionalProperties"].(map[string]any); ok && ap["properties"] != nil {
			collectRows(rows, path+".*.", ap)
		}
	}
}

// cell makes text fit one table cell.
func cell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	s = strings.ReplaceAll(s, "\n\n", "<br><br>")
	return strings.ReplaceAll(s, "\n", " ")
}

// typeOf describes a schema in a few words.
func typeOf(v any) string {
	s, ok := v.(map[string]any)
	if !ok {
		return "any"
	}
	if ref, ok := s["$ref"].(string); ok {
		n := strings.TrimPrefix(ref, "#/$defs/")
		return fmt.Sprintf("[%s](#%s)", n, strings.ToLower(n))
	}
	if c, ok := s["const"]; ok {
		return "`" + jsonText(c) + "`"
	}
	if e, ok := s["enum"].([]any); ok {
		var vs []string
		for _, x := range e {
			vs = append(vs, "`"+jsonText(x)+"`")
		}
		return "one of " + strings.Join(vs, ", ")
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		if alts, ok := s[k].([]any); ok {
			var ts []string
			for _, a := range alts {
				if t := typeOf(a); !contains(ts, t) {
					ts = append(ts, t)
				}
			}
			sep := " or "
			if k == "allOf" {
				sep = " and "
			}
			return strings.Join(ts, sep)
		}
	}
	return baseType(s) + constraints(s)
}

func baseType(s map[string]any) string {
	switch t := s["type"].(type) {
	case string:
		switch t {
		case "array":
			return "list of " + typeOf(s["items"])
		case "object":
			if ap, ok := s["additionalProperties"].(map[string]any); ok && s["properties"] == nil {
				return "map of " + typeOf(ap)
			}
			if pp, ok := s["patternProperties"].(map[string]any); ok && s["properties"] == nil {
				for _, k := range sortedMapKeys(pp) {
					return fmt.Sprintf("map (keys matching `%s`) of %s", k, typeOf(pp[k]))
				}
			}
		}
		return t
	case []any:
		var ts []string
		for _, x := range t {
			ts = append(ts, fmt.Sprint(x))
		}
		return strings.Join(ts, " or ")
	}
	if _, ok := s["properties"]; ok {
		return "object"
	}
	return "any"
}

func constraints(s map[string]any) string {
	var cs []string
	for _, c := range []struct{ key, say string }{
		{"minimum", "≥ %v"}, {"exclusiveMinimum", "> %v"}, {"maximum", "≤ %v"}, {"exclusiveMaximum", "< %v"},
		{"minLength", "at least %v characters"}, {"maxLength", "at most %v characters"},
		{"minItems", "at least %v items"}, {"maxItems", "at most %v items"}, {"pattern", "matching `%v`"},
	} {
		if v, ok := s[c.key]; ok {
			if f, isNum := v.(float64); isNum {
				v = strconv.FormatFloat(f, 'f', -1, 64)
			}
			cs = append(cs, fmt.Sprintf(c.say, v))
		}
	}
	if len(cs) == 0 {
		return ""
	}
	return " (" + strings.Join(cs, ", ") + ")"
}

func keyList(v any) string {
	var ks []string
	if l, ok := v.([]any); ok {
		for _, k := range l {
			ks = append(ks, fmt.Sprintf("`%v`", k))
		}
	}
	return strings.Join(ks, " and ")
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

func sortedMapKeys(m map[string]any) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
