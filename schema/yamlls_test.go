package schema_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mlcube-compile/mlcube-compile/schema"
)

// yamlLanguageServerModules is where TestYAMLLanguageServer looks for the
// npm package yaml-language-server (and its dependencies), unless
// YAML_LANGUAGE_SERVER_MODULES names another node_modules folder. Install
// it there, outside the repository, with
//
//	npm install --prefix /tmp/yaml-language-server yaml-language-server@1.25.0
const yamlLanguageServerModules = "/tmp/yaml-language-server/node_modules"

// yamllsResult is what testdata/yamlls.js prints for one file.
type yamllsResult struct {
	File        string `json:"file"`
	Diagnostics []struct {
		Line, Character int
		Source, Message string
	} `json:"diagnostics"`
	Hover string `json:"hover"`
}

// positions returns where the schema's diagnostics are, as line:col from
// 1, and whether the editor's YAML parser complained of the file itself.
func (r yamllsResult) positions() (at []string, syntax bool) {
	for _, d := range r.Diagnostics {
		if !strings.HasPrefix(d.Source, "yaml-schema:") {
			syntax = true
			continue
		}
		at = append(at, fmt.Sprintf("%d:%d", d.Line+1, d.Character+1))
	}
	slices.Sort(at)
	return at, syntax
}

// moreThan returns each position of at that comes more often than in
// want: a place where the editor says more than the compiler, such as
// "Incorrect type" twice for one integer field.
func moreThan(at, want []string) []string {
	var out []string
	for _, a := range slices.Compact(slices.Clone(at)) {
		if count(at, a) > count(want, a) {
			out = append(out, a)
		}
	}
	return out
}

func count(list []string, s string) int {
	n := 0
	for _, x := range list {
		if x == s {
			n++
		}
	}
	return n
}

// needYAMLLanguageServer returns the node_modules folder that holds
// yaml-language-server, or skips the test saying what is missing.
func needYAMLLanguageServer(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not on PATH: yaml-language-server's validator is not run")
	}
	modules := os.Getenv("YAML_LANGUAGE_SERVER_MODULES")
	if modules == "" {
		modules = yamlLanguageServerModules
	}
	if _, err := os.Stat(filepath.Join(modules, "yaml-language-server", "package.json")); err != nil {
		t.Skipf("yaml-language-server is not under %s (npm install --prefix %s yaml-language-server@1.25.0, or set "+
			"YAML_LANGUAGE_SERVER_MODULES): %v", modules, filepath.Dir(modules), err)
	}
	return modules
}

// runYAMLLanguageServer writes every schema as docs/editors.md does into
// a workspace folder, and runs testdata/yamlls.js on files with the
// page's yaml.schemas.
func runYAMLLanguageServer(t *testing.T, modules, root string, setup editorSetup,
	files []string) map[string]yamllsResult {
	t.Helper()
	s, err := schema.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range schema.Export {
		raw, err := s.JSONSchema(e.Kind, e.Title)
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(root, setup.files[e.Name])
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(out, raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	req, err := json.Marshal(map[string]any{"root": root, "schemas": setup.schemas, "files": files})
	if err != nil {
		t.Fatal(err)
	}
	reqFile := filepath.Join(t.TempDir(), "request.json")
	if err := os.WriteFile(reqFile, req, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", "testdata/yamlls.js", reqFile)
	cmd.Env = append(os.Environ(), "YAML_LANGUAGE_SERVER_MODULES="+modules)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node testdata/yamlls.js: %v\n%s", err, out)
	}
	results := map[string]yamllsResult{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r yamllsResult
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%q: %v", sc.Text(), err)
		}
		results[r.File] = r
	}
	return results
}

// withModeline copies a file into a folder below root with the modeline
// of docs/editors.md as its first line.
func withModeline(t *testing.T, root, modeline, file string) string {
	t.Helper()
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp(root, "values")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, filepath.Base(file))
	if err := os.WriteFile(out, append([]byte(modeline+"\n"), src...), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// goldenPositions returns where a bad case's stderr.golden puts the errors
// of one of its files, as line:col, and whether one has no position.
func goldenPositions(t *testing.T, caseDir, rel string, shift int) (at []string, unplaced bool) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(caseDir, "stderr.golden"))
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`^` + regexp.QuoteMeta(rel) + `:(?:(\d+):(\d+):)? `)
	for _, line := range strings.Split(string(src), "\n") {
		m := re.FindStringSubmatch(line)
		switch {
		case m == nil:
		case m[1] == "", strings.Contains(line, "is a Kubernetes object"):
			// Refused whole: empty, binary, or compiled output.
			unplaced = true
		default:
			var l, c int
			fmt.Sscan(m[1], &l)
			fmt.Sscan(m[2], &c)
			at = append(at, fmt.Sprintf("%d:%d", l+shift, c))
		}
	}
	slices.Sort(at)
	return at, unplaced
}

// editorCase is one file TestYAMLLanguageServer opens: an example, or a
// file of a bad case (caseDir, and its path there as stderr.golden names
// it), shift lines below where it was written when it has a modeline.
type editorCase struct {
	file, kind   string
	caseDir, rel string
	shift        int
}

// editorCases returns every file under dir that docs/editors.md gives a
// schema: by the globs, or by the modeline for values files.
func editorCases(t *testing.T, setup editorSetup, root, dir string, bad bool) []editorCase {
	t.Helper()
	var out []editorCase
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		c := editorCase{file: path}
		if bad {
			c.caseDir = filepath.Join(dir, strings.SplitN(strings.TrimPrefix(path, dir+"/"), "/", 2)[0])
			c.rel = strings.TrimPrefix(path, c.caseDir+"/")
		}
		if kinds := setup.schemaKinds(filepath.ToSlash(path)); len(kinds) == 1 {
			c.kind = kinds[0]
		} else if d.Name() == "values.yaml" {
			c.kind, c.shift = "values", 1
			c.file = withModeline(t, root, setup.modeline, path)
		} else {
			return nil
		}
		if abs, err := filepath.Abs(c.file); err == nil {
			c.file = abs
		}
		out = append(out, c)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// propertyDescriptions returns the description of every property named
// key anywhere in a JSON Schema.
func propertyDescriptions(s any, key string) []string {
	var out []string
	switch s := s.(type) {
	case map[string]any:
		if props, ok := s["properties"].(map[string]any); ok {
			if p, ok := props[key].(map[string]any); ok {
				if d, ok := p["description"].(string); ok {
					out = append(out, d)
				}
			}
		}
		for _, v := range s {
			out = append(out, propertyDescriptions(v, key)...)
		}
	case []any:
		for _, v := range s {
			out = append(out, propertyDescriptions(v, key)...)
		}
	}
	return out
}

// allIn reports whether every position of at is one of want.
func allIn(at, want []string) bool {
	for _, a := range at {
		if !slices.Contains(want, a) {
			return false
		}
	}
	return true
}

// firstKey returns the first top-level key of a YAML file, where
// testdata/yamlls.js hovers.
func firstKey(t *testing.T, file string) string {
	t.Helper()
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return regexp.MustCompile(`(?m)^([A-Za-z_][^:\s]*):`).FindStringSubmatch(string(src))[1]
}

// TestYAMLLanguageServer opens every example and every bad spec that
// docs/editors.md gives a schema in yaml-language-server's own language
// service, with the page's yaml.schemas (and its modeline for values
// files): examples have no diagnostics, and the hover on their first key
// shows its description and the right schema; a bad spec's schema errors
// are where mlcube-compile reports errors, line and column. Files whose
// YAML the editor's parser refuses, or that the compiler refuses whole
// (empty, binary, a Kubernetes object), are left out: the two parsers word those their own way.
func TestYAMLLanguageServer(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: yaml-language-server takes seconds to check every example and bad spec")
	}
	modules := needYAMLLanguageServer(t)
	setup := readEditorSetup(t)
	root := t.TempDir()
	examples := editorCases(t, setup, root, "../examples", false)
	bad := editorCases(t, setup, root, "../testdata/bad", true)
	var files []string
	for _, c := range append(slices.Clone(examples), bad...) {
		files = append(files, c.file)
	}
	results := runYAMLLanguageServer(t, modules, root, setup, files)
	for _, c := range examples {
		checkExample(t, root, setup, c, results[c.file])
	}
	placed, left := map[string]bool{}, 0
	for _, c := range bad {
		at, syntax := results[c.file].positions()
		want, unplaced := goldenPositions(t, c.caseDir, c.rel, c.shift)
		if syntax || unplaced {
			left++
			continue
		}
		name := filepath.Base(c.caseDir) + "/" + c.rel
		// Every schema error is where mlcube-compile puts it; the
		// compiler reports the errors the checks after the schema find
		// too, in the same run, which no editor sees.
		if len(at) > 0 && !allIn(at, want) {
			t.Errorf("%s: yaml-language-server's errors are at %q, mlcube-compile's at %q: %+v", name, at, want,
				results[c.file].Diagnostics)
		}
		if more := moreThan(at, want); len(more) > 0 {
			t.Errorf("%s: yaml-language-server reports more errors than mlcube-compile at %q: %+v", name, more,
				results[c.file].Diagnostics)
		}
		if len(at) > 0 {
			placed[name] = true
		}
	}
	t.Logf("%d examples; %d bad spec files, %d with schema errors all where mlcube-compile puts them, %d left out",
		len(examples), len(bad), len(placed), left)
	for _, name := range []string{"wrong-type-cube/mlcube.yaml", "missing-name-cube/mlcube.yaml",
		"unknown-key-cube/mlcube.yaml", "wrong-type-legacy-root/mlcube.yaml", "wrong-type-platform/platform.yaml",
		"wrong-type-pipeline/pipeline.yaml", "values-wrong-type/values.yaml"} {
		if !placed[name] {
			t.Errorf("%s: yaml-language-server finds no error (files it placed: %d)", name, len(placed))
		}
	}
}

// checkExample checks what yaml-language-server says of an example.
func checkExample(t *testing.T, root string, setup editorSetup, c editorCase, r yamllsResult) {
	t.Helper()
	if r.File == "" || len(r.Diagnostics) > 0 {
		t.Errorf("%s: yaml-language-server says %+v", c.file, r.Diagnostics)
	}
	hover := strings.ReplaceAll(r.Hover, `\`, "")
	if src := "Source: [" + filepath.Base(setup.files[c.kind]) + "]"; !strings.Contains(hover, src) {
		t.Errorf("%s: the hover does not name its %s schema (%s): %q", c.file, c.kind, src, r.Hover)
	}
	if c.kind == "values" {
		return // a values file's keys are the pipeline's params
	}
	raw, err := os.ReadFile(filepath.Join(root, setup.files[c.kind]))
	if err != nil {
		t.Fatal(err)
	}
	var s any
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	key := firstKey(t, c.file)
	descs := propertyDescriptions(s, key)
	if !slices.ContainsFunc(descs, func(d string) bool { return strings.Contains(hover, d) }) {
		t.Errorf("%s: the hover on %s shows none of its descriptions %q: %q", c.file, key, descs, r.Hover)
	}
}
