package schema

import (
	"encoding/json"
	"fmt"
	"io/fs"
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
	out.WriteString("// The schemas mlcube-compile checks spec files with. Check a file with\n// cue vet -d '#Platform' schema.cue platform.yaml (or #MLCubeFile, #Pipeline, #Values).\npackage schema\n")
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
	out["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	out["title"] = title
	b, err = json.MarshalIndent(out, "", "  ")
	return append(b, '\n'), err
}
