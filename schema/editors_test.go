package schema_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/mlcube-compile/mlcube-compile/compiler"
	"github.com/mlcube-compile/mlcube-compile/schema"
)

// editorsDoc is the page that tells users how to set up their editor.
const editorsDoc = "../docs/editors.md"

// editorSetup is what docs/editors.md tells users to write: the
// yaml.schemas map of its VS Code snippet (each schema file, relative to
// the workspace folder, to its globs), the file each kind's schema is
// written to, and the modeline of a file with another name.
type editorSetup struct {
	schemas  map[string][]string
	files    map[string]string // kind → schema file
	modeline string
}

// readEditorSetup reads the setup from docs/editors.md.
func readEditorSetup(t *testing.T) editorSetup {
	t.Helper()
	src, err := os.ReadFile(editorsDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(src)
	var setup editorSetup
	for _, block := range regexp.MustCompile("(?s)```json\n(.*?)```").FindAllStringSubmatch(doc, -1) {
		var settings struct {
			Schemas map[string][]string `json:"yaml.schemas"`
		}
		if err := json.Unmarshal([]byte(block[1]), &settings); err != nil {
			t.Fatalf("%s: a json block is not JSON: %v", editorsDoc, err)
		}
		if settings.Schemas != nil {
			setup.schemas = settings.Schemas
		}
	}
	if len(setup.schemas) == 0 {
		t.Fatalf("%s: no json block with yaml.schemas", editorsDoc)
	}
	setup.files = map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^mlcube-compile schema --format jsonschema --kind (\S+) `+
		`> (\S+)$`).FindAllStringSubmatch(doc, -1) {
		setup.files[m[1]] = m[2]
	}
	setup.modeline = regexp.MustCompile(`(?m)^# yaml-language-server: \$schema=\S+$`).FindString(doc)
	return setup
}

// kindOf returns the kind whose schema the setup writes to file, or "".
func (s editorSetup) kindOf(file string) string {
	for kind, f := range s.files {
		if f == file {
			return kind
		}
	}
	return ""
}

// globRegexp compiles a glob as yaml-language-server matches it against a
// path: ** any folders, * and ? within one name.
func globRegexp(glob string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("^(.*/)?") // yaml-language-server puts **/ before every glob
	for i := 0; i < len(glob); i++ {
		switch {
		case strings.HasPrefix(glob[i:], "**/"):
			b.WriteString("(.*/)?")
			i += 2
		case strings.HasPrefix(glob[i:], "**"):
			b.WriteString(".*")
			i++
		case glob[i] == '*':
			b.WriteString("[^/]*")
		case glob[i] == '?':
			b.WriteString("[^/]")
		default:
			b.WriteString(regexp.QuoteMeta(glob[i : i+1]))
		}
	}
	return regexp.MustCompile(b.String() + "$")
}

// schemaKinds returns the kinds of the schemas whose globs match path
// (slash-separated, relative to the workspace folder).
func (s editorSetup) schemaKinds(path string) []string {
	var out []string
	for file, globs := range s.schemas {
		for _, g := range globs {
			if globRegexp(g).MatchString(path) {
				out = append(out, s.kindOf(file))
				break
			}
		}
	}
	slices.Sort(out)
	return out
}

// wantKind is the schema an editor must check a file with: the kind
// compiler.Classify gives it, none for the files of the 1.0 layout that
// have no JSON Schema (its platform and invoke files), none for others.
func wantKind(t *testing.T, path string) string {
	t.Helper()
	var top map[string]any
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_ = yaml.Unmarshal(src, &top)
	legacy := top["schema_type"] != nil && top["schema_type"] != "mlcube_root"
	switch kind := compiler.Classify(path); {
	case legacy:
		return ""
	case kind == compiler.CubeFile && top["container_type"] != nil:
		return "container"
	case kind == compiler.CubeFile:
		return "mlcube"
	case kind == compiler.PlatformFile:
		return "platform"
	case kind == compiler.TaskFile:
		return "pipeline"
	}
	return ""
}

// TestEditorSettingsMapExamples checks the VS Code snippet of
// docs/editors.md: its globs give every file of examples/ the schema of
// the kind compiler.Classify says it is, and the page's commands write
// every schema file it names.
func TestEditorSettingsMapExamples(t *testing.T) {
	setup := readEditorSetup(t)
	for _, e := range schema.Export {
		if setup.files[e.Name] == "" {
			t.Errorf("%s: no command writes the %s schema", editorsDoc, e.Name)
		}
	}
	for file := range setup.schemas {
		if setup.kindOf(file) == "" {
			t.Errorf("%s: yaml.schemas names %s, which no command writes", editorsDoc, file)
		}
	}
	if !strings.HasSuffix(setup.modeline, "/"+filepath.Base(setup.files["values"])) {
		t.Errorf("%s: the modeline %q does not name the values schema %s", editorsDoc, setup.modeline, setup.files["values"])
	}
	seen := map[string]int{}
	err := filepath.WalkDir("../examples", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(path, "../"))
		want := []string{}
		if k := wantKind(t, path); k != "" {
			want = []string{k}
			seen[k]++
		}
		if diff := cmp.Diff(want, setup.schemaKinds(rel), cmpEmpty); diff != "" {
			t.Errorf("%s: the schemas its globs give it (-want +got):\n%s", rel, diff)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen["mlcube"] < 8 || seen["platform"] < 4 || seen["pipeline"] < 6 {
		t.Errorf("examples of each kind: %v", seen)
	}
}

// cmpEmpty compares nil and empty slices as equal.
var cmpEmpty = cmp.Comparer(func(a, b []string) bool { return slices.Equal(a, b) })

func TestGlobRegexp(t *testing.T) {
	for _, c := range []struct {
		glob, path string
		want       bool
	}{
		{"**/mlcube.yaml", "mlcube.yaml", true},
		{"**/mlcube.yaml", "examples/mnist/mlcube.yaml", true},
		{"**/mlcube.yaml", "examples/mnist/mlcube.yml", false},
		{"**/mlcube.yaml", "examples/mnist/mymlcube.yaml", false},
		{"mlcube.yaml", "a/mlcube.yaml", true},
		{"run/*.yaml", "cube/run/train.yaml", true},
		{"run/*.yaml", "cube/run/x/train.yaml", false},
		{"run/?.yaml", "run/a.yaml", true},
		{"a/**/b.yaml", "a/x/y/b.yaml", true},
	} {
		if got := globRegexp(c.glob).MatchString(c.path); got != c.want {
			t.Errorf("%s matches %s: got %v, want %v", c.glob, c.path, got, c.want)
		}
	}
}
