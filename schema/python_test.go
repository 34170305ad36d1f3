package schema

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"sigs.k8s.io/yaml"
)

// pythonResult is what testdata/validate.py prints for one document.
type pythonResult struct {
	File    string   `json:"file"`
	Errors  []string `json:"errors"`
	Best    *string  `json:"best"`
	Message string   `json:"message"`
}

func (r pythonResult) String() string {
	if r.Best == nil {
		return fmt.Sprintf("valid (errors at %q)", r.Errors)
	}
	return fmt.Sprintf("at %q: %s (errors at %q)", *r.Best, r.Message, r.Errors)
}

// runPython validates each YAML file against the JSON Schema of a kind
// with python's jsonschema (testdata/validate.py), and returns the result
// of each file by its path.
func runPython(t *testing.T, kind string, files []string) map[string]pythonResult {
	t.Helper()
	dir := t.TempDir()
	s, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	var raw []byte
	for _, e := range Export {
		if e.Name == kind {
			raw, err = s.JSONSchema(e.Kind, e.Title)
		}
	}
	if err != nil || raw == nil {
		t.Fatalf("the JSON Schema of %s: %v", kind, err)
	}
	args := []string{"testdata/validate.py", filepath.Join(dir, "schema.json")}
	if err := os.WriteFile(args[1], raw, 0o644); err != nil {
		t.Fatal(err)
	}
	byJSON := map[string]string{}
	for i, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		js, err := yaml.YAMLToJSON(src)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		name := filepath.Join(dir, fmt.Sprintf("%d.json", i))
		if err := os.WriteFile(name, js, 0o644); err != nil {
			t.Fatal(err)
		}
		args, byJSON[name] = append(args, name), f
	}
	out, err := exec.Command("python3", args...).Output()
	if err != nil {
		t.Fatalf("python3 %v: %v\n%s", args, err, out)
	}
	results := map[string]pythonResult{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var r pythonResult
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%q: %v", sc.Text(), err)
		}
		results[byJSON[r.File]] = r
	}
	return results
}

// TestPythonJSONSchema checks the exported schemas with python's
// jsonschema, as editors and CI scripts use it: every good spec is valid,
// and each bad spec's errors, and best_match's, are at its mistake. It
// runs where python3 has jsonschema 4 or later (Debian: apt-get install
// python3-jsonschema) and is skipped, saying so, elsewhere.
func TestPythonJSONSchema(t *testing.T) {
	probe := exec.Command("python3", "-c", "from jsonschema import Draft202012Validator")
	if out, err := probe.CombinedOutput(); err != nil {
		t.Skipf("python3 with jsonschema 4 or later is not here (apt-get install python3-jsonschema): %v: %s", err, out)
	}
	for _, e := range Export {
		good := goodFiles(t, e.Name)
		var bad []string
		at := map[string][]string{}
		for _, c := range badSpecs {
			if c.kind == e.Name {
				f := filepath.Join("../testdata/bad", c.file)
				bad, at[f] = append(bad, f), c.at
			}
		}
		results := runPython(t, e.Name, append(good, bad...))
		for _, f := range good {
			if r := results[f]; r.File == "" || r.Best != nil {
				t.Errorf("%s: python's jsonschema says %s", f, r)
			}
		}
		for _, f := range bad {
			r := results[f]
			if r.Best == nil || !slices.Contains(at[f], *r.Best) {
				t.Errorf("%s: python's best_match is %s, want an error at one of %q", f, r, at[f])
			}
			for _, p := range r.Errors {
				if !slices.Contains(at[f], p) {
					t.Errorf("%s: python's jsonschema has an error at %q, want them at %q (%s)", f, p, at[f], r.Message)
				}
			}
		}
	}
}
