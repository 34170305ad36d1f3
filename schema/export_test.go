package schema

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"
	cueyaml "cuelang.org/go/encoding/yaml"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"sigs.k8s.io/yaml"
)

// specFiles finds files named name under the roots that exist.
func specFiles(t *testing.T, name string, roots ...string) []string {
	t.Helper()
	var out []string
	for _, root := range roots {
		_ = filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
			if err == nil && info.Name() == name {
				out = append(out, p)
			}
			return nil
		})
	}
	return out
}

// compileJSONSchema compiles our JSON Schema for a kind with an
// independent validator.
func compileJSONSchema(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	s, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range Export {
		if e.Name != name {
			continue
		}
		raw, err := s.JSONSchema(e.Kind, e.Title)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		c := jsonschema.NewCompiler()
		if err := c.AddResource(name+".json", doc); err != nil {
			t.Fatal(err)
		}
		sch, err := c.Compile(name + ".json")
		if err != nil {
			t.Fatalf("%s: the JSON Schema does not compile: %v", name, err)
		}
		return sch
	}
	t.Fatalf("no kind %s", name)
	return nil
}

// validateYAML validates a YAML file against a compiled JSON Schema.
func validateYAML(t *testing.T, sch *jsonschema.Schema, path string) error {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	js, err := yaml.YAMLToJSON(src)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(js))
	if err != nil {
		t.Fatal(err)
	}
	return sch.Validate(inst)
}

func TestJSONSchemaAcceptsEveryCubeAndExample(t *testing.T) {
	for _, c := range []struct {
		kind, file string
		roots      []string
		min        int
	}{
		{"mlcube", "mlcube.yaml", []string{"../../shared/cubes", "../examples"}, 12},
		{"platform", "platform.yaml", []string{"../examples"}, 4},
		{"pipeline", "pipeline.yaml", []string{"../examples"}, 6},
		{"values", "values.yaml", []string{"../examples"}, 1},
	} {
		sch := compileJSONSchema(t, c.kind)
		files := specFiles(t, c.file, c.roots...)
		if len(files) < c.min {
			t.Fatalf("%d %s files, want at least %d (is ../shared beside the repository?)", len(files), c.file, c.min)
		}
		for _, f := range files {
			if err := validateYAML(t, sch, f); err != nil {
				t.Errorf("%s: rejected by the %s JSON Schema: %v", f, c.kind, err)
			}
		}
	}
}

func TestJSONSchemaRejectsBadSpecs(t *testing.T) {
	for kind, files := range map[string][]string{
		"mlcube":   {"wrong-type-cube/mlcube.yaml", "unknown-key-cube/mlcube.yaml", "missing-name-cube/mlcube.yaml"},
		"platform": {"unknown-key-platform/platform.yaml", "wrong-type-platform/platform.yaml"},
		"pipeline": {"unknown-key-pipeline/pipeline.yaml", "wrong-type-pipeline/pipeline.yaml", "unknown-key-step/pipeline.yaml"},
		"values":   {"values-wrong-type/values.yaml"},
	} {
		sch := compileJSONSchema(t, kind)
		for _, f := range files {
			if err := validateYAML(t, sch, filepath.Join("../testdata/bad", f)); err == nil {
				t.Errorf("%s: accepted by the %s JSON Schema", f, kind)
			}
		}
	}
}

// TestCUESourceChecksLikeTheSchema compiles the printed CUE on its own and
// checks examples with it, as cue vet -d would.
func TestCUESourceChecksLikeTheSchema(t *testing.T) {
	src, err := CUESource()
	if err != nil {
		t.Fatal(err)
	}
	ctx := cuecontext.New()
	v := ctx.CompileString(src)
	if err := v.Err(); err != nil {
		t.Fatalf("the printed schema does not compile: %v", err)
	}
	check := func(def, path string) error {
		f, err := cueyaml.Extract(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		return ctx.BuildFile(f).Unify(v.LookupPath(cue.ParsePath(def))).Validate(cue.Concrete(true))
	}
	if err := check("#Platform", "../examples/single-gpu-task/platform.yaml"); err != nil {
		t.Errorf("an example platform is rejected: %v", err)
	}
	if err := check("#Pipeline", "../examples/medperf-style/pipeline.yaml"); err != nil {
		t.Errorf("an example pipeline is rejected: %v", err)
	}
	if err := check("#Platform", "../testdata/bad/unknown-key-platform/platform.yaml"); err == nil {
		t.Errorf("a bad platform is accepted")
	}
	if strings.Count(src, "package schema") != 1 {
		t.Errorf("want one package clause")
	}
	var j map[string]any
	s, _ := Load()
	raw, err := s.JSONSchema(Pipeline, "p")
	if err != nil || json.Unmarshal(raw, &j) != nil || j["$schema"] == nil {
		t.Errorf("the JSON Schema has no $schema: %v", err)
	}
}
