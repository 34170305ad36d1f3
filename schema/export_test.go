package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"
	cueyaml "cuelang.org/go/encoding/yaml"
	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"sigs.k8s.io/yaml"
)

// specFiles finds files named name under the roots that exist.
func specFiles(t *testing.T, name string, roots ...string) []string {
	t.Helper()
	var out []string
	for _, root := range roots {
		_ = filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
			if ok, _ := filepath.Match(name, info.Name()); err == nil && ok {
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

// sharedCubes are MLCommons' and MedPerf's cubes, beside the repository,
// and sharedCubes10 MLCommons' cubes in the MLCube 1.0 layout.
const (
	sharedCubes   = "../../shared/cubes"
	sharedCubes10 = "../../shared/cubes-1.0"
)

// goodSpecs are the spec files every schema must accept: each kind's
// files by name (a glob) under the roots, at least min of them.
var goodSpecs = []struct {
	kind, file string
	roots      []string
	min        int
}{
	{"mlcube", "mlcube.yaml", []string{sharedCubes, sharedCubes10, "../examples"}, 14},
	{"platform", "platform.yaml", []string{"../examples"}, 4},
	{"pipeline", "pipeline.yaml", []string{"../examples"}, 6},
	{"values", "values.yaml", []string{"../examples"}, 1},
	{"container", "container_config*.yaml", []string{sharedCubes, "../examples"}, 12},
}

// goodFiles returns the files of goodSpecs for a kind.
func goodFiles(t *testing.T, kind string) []string {
	t.Helper()
	for _, c := range goodSpecs {
		if c.kind != kind {
			continue
		}
		roots, min := c.roots, c.min
		if _, err := os.Stat(sharedCubes); err != nil && os.Getenv("CI") == "" {
			// A clone on its own, as a new user has it; CI always has
			// ../shared beside it, and fails without it.
			t.Logf("%s is not beside the repository: checking the examples only", sharedCubes)
			roots, min = slices.DeleteFunc(slices.Clone(roots),
				func(r string) bool { return r == sharedCubes || r == sharedCubes10 }), 1
		}
		files := specFiles(t, c.file, roots...)
		if len(files) < min {
			t.Fatalf("%d %s files, want at least %d (is ../shared beside the repository?)", len(files), c.file, c.min)
		}
		return files
	}
	t.Fatalf("no kind %s", kind)
	return nil
}

func TestJSONSchemaAcceptsEveryCubeAndExample(t *testing.T) {
	for _, e := range Export {
		sch := compileJSONSchema(t, e.Name)
		for _, f := range goodFiles(t, e.Name) {
			if err := validateYAML(t, sch, f); err != nil {
				t.Errorf("%s: rejected by the %s JSON Schema: %v", f, e.Name, err)
			}
		}
	}
}

// badSpecs are bad specs of testdata/bad that the JSON Schema rejects,
// each with where a validator must find the mistake: the fields its
// stderr.golden names (the parent of an unknown key, whose
// additionalProperties refuse it), as JSON pointers.
var badSpecs = []struct {
	kind, file string
	at         []string
}{
	{"mlcube", "wrong-type-cube/mlcube.yaml", []string{"/platform/accelerator_count"}},
	{"mlcube", "unknown-key-cube/mlcube.yaml", []string{"/docker"}},
	{"mlcube", "missing-name-cube/mlcube.yaml", []string{""}},
	{"mlcube", "wrong-type-legacy-root/mlcube.yaml", []string{"/tasks"}},
	{"platform", "unknown-key-platform/platform.yaml", []string{""}},
	{"platform", "wrong-type-platform/platform.yaml", []string{"/imagePullSecrets", "/ttlSecondsAfterFinished"}},
	{"pipeline", "unknown-key-pipeline/pipeline.yaml", []string{""}},
	{"pipeline", "wrong-type-pipeline/pipeline.yaml", []string{"/steps/train/after", "/steps/train/args"}},
	{"pipeline", "unknown-key-step/pipeline.yaml", []string{"/steps/train"}},
	{"values", "values-wrong-type/values.yaml", []string{"/epochs", "/size"}},
}

// TestJSONSchemaRejectsBadSpecs checks that each bad spec is rejected for
// its real mistake: every error the validator gives is at the field, not
// at the root for failing every branch of an anyOf.
func TestJSONSchemaRejectsBadSpecs(t *testing.T) {
	for _, c := range badSpecs {
		sch := compileJSONSchema(t, c.kind)
		err := validateYAML(t, sch, filepath.Join("../testdata/bad", c.file))
		if err == nil {
			t.Errorf("%s: accepted by the %s JSON Schema", c.file, c.kind)
			continue
		}
		var verr *jsonschema.ValidationError
		if !errors.As(err, &verr) {
			t.Fatalf("%s: %v", c.file, err)
		}
		if diff := cmp.Diff(c.at, errorLeaves(verr)); diff != "" {
			t.Errorf("%s: where the errors are (-want +got):\n%s\n%v", c.file, diff, err)
		}
	}
}

// errorLeaves returns where each innermost error of e is, as sorted JSON
// pointers without repeats.
func errorLeaves(e *jsonschema.ValidationError) []string {
	if len(e.Causes) == 0 {
		var b strings.Builder
		for _, tok := range e.InstanceLocation {
			b.WriteString("/" + strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1"))
		}
		return []string{b.String()}
	}
	var out []string
	for _, c := range e.Causes {
		out = append(out, errorLeaves(c)...)
	}
	sort.Strings(out)
	return slices.Compact(out)
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
