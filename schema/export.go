package schema

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strings"

	"cuelang.org/go/encoding/jsonschema"
)

// Export names the kinds of spec file users write, as the schema command
// takes them, with the definition that checks each.
var Export = []struct {
	Name  string
	Kind  Kind
	Title string
}{
	{"mlcube", MLCubeFile, "MLCube (mlcube.yaml), MLCube 2.0 or the 1.0 root layout"},
	{"platform", Platform, "mlcube-compile platform file"},
	{"pipeline", Pipeline, "mlcube-compile pipeline file"},
	{"values", Values, "mlcube-compile values file (-f)"},
	{"container", ContainerConfig, "MedPerf container (container_config.yaml)"},
}

// CUESource is every embedded schema file as one CUE file: one package
// clause, the imports merged, then each file's body under its name.
func CUESource() (string, error) {
	names, err := fs.Glob(files, "*.cue")
	if err != nil {
		return "", err
	}
	sort.Strings(names)
	imports := map[string]bool{}
	var bodies strings.Builder
	for _, name := range names {
		src, err := files.ReadFile(name)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&bodies, "\n// ---- %s\n", name)
		for _, line := range strings.Split(string(src), "\n") {
			switch {
			case strings.HasPrefix(line, "package "):
				continue
			case strings.HasPrefix(line, "import "):
				imports[strings.TrimSpace(strings.TrimPrefix(line, "import "))] = true
				continue
			}
			bodies.WriteString(line + "\n")
		}
	}
	var out strings.Builder
	out.WriteString("// The schemas mlcube-compile checks spec files with. Check a file with\n" +
		"// cue vet -d '#Platform' schema.cue platform.yaml (or #MLCubeFile, #Pipeline, #Values).\npackage schema\n")
	for _, imp := range sortedKeys(imports) {
		fmt.Fprintf(&out, "\nimport %s\n", imp)
	}
	out.WriteString(bodies.String())
	return out.String(), nil
}

func sortedKeys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// JSONSchema generates a JSON Schema (draft 2020-12) for specs of kind k
// from the CUE definitions, so the two cannot drift apart.
func (s *Schema) JSONSchema(k Kind, title string) (out []byte, err error) {
	s.Do(func(c *Context) { out, err = c.jsonSchema(k, title) })
	return out, err
}

func (c *Context) jsonSchema(k Kind, title string) ([]byte, error) {
	expr, err := jsonschema.Generate(c.Def(k), nil)
	if err != nil {
		return nil, fmt.Errorf("generating the JSON Schema of %s: %w", k, err)
	}
	v := c.cue.BuildExpr(expr)
	if err := v.Err(); err != nil {
		return nil, fmt.Errorf("building the JSON Schema of %s: %w", k, err)
	}
	b, err := v.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, err
	}
	unwrap(out)
	fitForEditors(out)
	if tag, ok := tags[k]; ok {
		if err := discriminate(out, tag); err != nil {
			return nil, fmt.Errorf("the JSON Schema of %s: %w", k, err)
		}
	}
	out["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	out["title"] = title
	b, err = json.MarshalIndent(out, "", "  ")
	return append(b, '\n'), err
}

// unwrap joins the lines of each paragraph of every description in
// schema s, wrapped as comments are, so that an editor wraps them itself,
// and drops the definition's name a description starts with.
func unwrap(s any) {
	walk(s, func(m map[string]any) {
		d, ok := m["description"].(string)
		if !ok {
			return
		}
		paras := strings.Split(d, "\n\n")
		for i, p := range paras {
			paras[i] = strings.Join(strings.Fields(p), " ")
		}
		m["description"] = plainDescription(strings.Join(paras, "\n\n"))
	})
}

// tags names, for a kind that is one of two layouts, the key only one of
// them has. CUE's generator writes the choice as an anyOf at the root, and
// validators then report a mistake in a cube as "not valid under any of
// the given schemas" at the root, or as the other layout's complaints; the
// key written as if/then/else checks a file against its own layout alone.
var tags = map[Kind]string{MLCubeFile: "schema_type"}

// discriminate replaces a schema's root anyOf of two definitions with
// if/then/else on whether tag is present: then the definition that
// requires tag, else the other one. It accepts exactly the documents the
// anyOf accepted as long as the other definition refuses every document
// with tag and every value that is not an object, which it checks.
func discriminate(schema map[string]any, tag string) error {
	alts, _ := schema["anyOf"].([]any)
	defs, _ := schema["$defs"].(map[string]any)
	if len(alts) != 2 {
		return fmt.Errorf("want an anyOf of two definitions at the root to tell apart by %q", tag)
	}
	var refs [2]string
	var ds [2]map[string]any
	for i, alt := range alts {
		a, _ := alt.(map[string]any)
		refs[i], _ = a["$ref"].(string)
		ds[i], _ = defs[strings.TrimPrefix(refs[i], "#/$defs/")].(map[string]any)
		if len(a) != 1 || ds[i] == nil {
			return fmt.Errorf("want each alternative at the root a definition, got %v", alt)
		}
	}
	for i := range 2 {
		with, without := ds[i], ds[1-i]
		if requires(with, tag) && refuses(without, tag) {
			delete(schema, "anyOf")
			schema["if"] = map[string]any{"required": []any{tag}}
			schema["then"] = map[string]any{"$ref": refs[i]}
			schema["else"] = map[string]any{"$ref": refs[1-i]}
			return nil
		}
	}
	return fmt.Errorf("%q is not required by one of %s and %s and refused by the other", tag, refs[0], refs[1])
}

// requires reports whether schema s requires property p.
func requires(s map[string]any, p string) bool {
	req, _ := s["required"].([]any)
	return slices.Contains(req, any(p))
}

// refuses reports whether schema s refuses every value that is not an
// object, and every object with property p: an object whose
// additionalProperties are false, with no property named p and no
// patternProperties that might match it. Every other keyword only adds
// constraints.
func refuses(s map[string]any, p string) bool {
	props, _ := s["properties"].(map[string]any)
	_, named := props[p]
	_, patterns := s["patternProperties"]
	return s["type"] == "object" && s["additionalProperties"] == false && !named && !patterns
}
