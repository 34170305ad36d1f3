package source

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mlcube-compile/mlcube-compile/compiler/internal/spectest"
	yamlv3 "go.yaml.in/yaml/v3"
)

// hint is a slip as one line: its fix after its message.
type hint struct {
	line, col int
	msg       string
}

func hintOf(s slip) hint {
	if s.fix != "" {
		s.msg += ": " + s.fix
	}
	return hint{s.line, s.col, s.msg}
}

// Each common YAML slip is explained at its line and column, with the fix.
// Every input is one the decoder refuses.
func TestYAMLSlips(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      hint
	}{
		{"tab", "name: demo\ndocker:\n\timage: x\n",
			hint{3, 1, "a tab indents this line, and YAML indents with spaces only: replace the tab with spaces"}},
		{"tab after spaces", "a:\n  b: 1\n  \tc: 2\n",
			hint{3, 3, "a tab indents this line, and YAML indents with spaces only: replace the tab with spaces"}},
		{"tab before a top key", "name: demo\n\tdocker: x\n",
			hint{2, 1, "a tab indents this line, and YAML indents with spaces only: replace the tab with spaces"}},
		{"out of line", "steps:\n  train:\n    task: train\n   args: [x]\n",
			hint{4, 4, `this line is indented by 3 spaces, which lines up with nothing above it: indent it by 2 spaces, as ` +
				`"train:" on line 2, or indent it by 4 spaces, as "task:" on line 3`}},
		{"out of line at the margin", "a:\n    b: 1\n  c: 2\n",
			hint{3, 3, `this line is indented by 2 spaces, which lines up with nothing above it: start it at the left margin, ` +
				`as "a:" on line 1, or indent it by 4 spaces, as "b:" on line 2`}},
		{"out of line in a list", "steps:\n  - name: a\n    image: b\n   cmd: c\n",
			hint{4, 4, `this line is indented by 3 spaces, which lines up with nothing above it: indent it by 2 spaces, as ` +
				`"-" on line 2, or indent it by 4 spaces, as "image:" on line 3`}},
		{"under a value", "docker:\n  image: x\n    tag: 1\n",
			hint{3, 5, `this line is indented more than "image:" on line 2, which already has a value, so nothing can nest ` +
				`under it: indent it by 2 spaces, as "image:" is`}},
		{"under a quoted value", "a: \"x\"\n  b: 1\n",
			hint{2, 3, `this line is indented more than "a:" on line 1, which already has a value, so nothing can nest under ` +
				`it: start it at the left margin, as "a:" is`}},
		{"colon in a plain value", "name: demo\ndescription: training: the model\n",
			hint{2, 22, `the value of "description" holds ": ", which YAML reads as the start of another key: put the value ` +
				`in quotes, as description: "training: the model"`}},
		{"colon in a plain value with quotes", "a: say \"hi\": now # c\n",
			hint{1, 12, `the value of "a" holds ": ", which YAML reads as the start of another key: put the value in quotes, ` +
				`as a: 'say "hi": now'`}},
		{"no space after a colon", "name: demo\ndocker:x\ntasks: {}\n",
			hint{2, 7, `"docker:x" has no space after its colon, so YAML reads it as one word, not as a key and its value: ` +
				`write "docker: x"`}},
		{"no space after the first key", "namespace:ml\nserviceAccountName: runner\n",
			hint{1, 10, `"namespace:ml" has no space after its colon, so YAML reads it as one word, not as a key and its ` +
				`value: write "namespace: ml"`}},
		{"text lined up with a key below", "a:\n  some text\n  b: 1\n",
			hint{2, 3, `this line sits among the keys of a mapping but is not "key: value": write it as key: value`}},
		{"no colon", "name: demo\ndocker\n  image: x\n",
			hint{2, 1, `"docker" has no colon after it, so it is not a key: write "docker:"`}},
		{"text among keys", "name: demo\nsome words here\nb: 1\n",
			hint{2, 1, `this line sits among the keys of a mapping but is not "key: value": write it as key: value, or indent ` +
				`it more than "name:" to go on with its value`}},
		{"unclosed double quote", "steps:\n  train: {task: \"train}\n",
			hint{2, 17, `this " is never closed, so the string runs to the end of the file: add the closing " where the ` +
				`string ends`}},
		{"unclosed single quote", "a: 'x\n",
			hint{1, 4, `this ' is never closed, so the string runs to the end of the file: add the closing ' where the ` +
				`string ends`}},
		{"quote closed on a later line", "a: \"x\nb: 1\nc: \"y\"\n",
			hint{1, 4, `this " is not closed on its line, so the string runs on to the " on line 3: close it on line 1`}},
		{"quote closed on a later line in a list", "steps:\n  train:\n    task: \"train\n    args: [\"x\"]\n",
			hint{3, 11, `this " is not closed on its line, so the string runs on to the " on line 4: close it on line 3`}},
		{"text after a quote in a list", "a: [\"x\" y]\n",
			hint{1, 9, `text follows the closing " of this string: put it inside the quotes, or start a comment with " #"`}},
		{"text after a quote", "a: \"x\" y\n",
			hint{1, 8, `text follows the closing " of this string: put it inside the quotes, or start a comment with " #"`}},
		{"unclosed bracket", "namespace: ml\ngpu:\n  resource: [nvidia.com/gpu\n",
			hint{3, 13, `this [ is never closed, so the list runs to the end of the file: add the ] that ends it`}},
		{"unclosed brace over lines", "a: {b: 1,\n  c: 2\nd: 3\n",
			hint{1, 4, `this { is never closed, so the mapping runs to the end of the file: add the } that ends it`}},
		{"wrong closer", "tasks: {train: {parameters: {inputs: [a, b}}\n",
			hint{1, 43, `this } would close the [ at line 1, column 38, which only ] closes: add ] where that list ends`}},
		{"text after a bracket", "a: [x, y] z\n",
			hint{1, 11, `text follows the ] that closes this list: put it inside the brackets, or start a comment with " #"`}},
		{"list on the line of its key", "a: - x\n", hint{1, 4,
			`a list cannot start on the line of its key "a": put each "- " item on a line of its own below the key, indented`}},
		{"key among list items", "a:\n  - x\n  y: 1\n",
			hint{3, 3, `this key lines up with the "-" on line 2, but a list holds only "- " items: indent it as the keys of ` +
				`that item are, or line it up with the key the list belongs to`}},
		{"one space out", "- a: 1\n - b: 2\n",
			hint{2, 2, `this line is indented by 1 space, which lines up with nothing above it: start it at the left margin, ` +
				`as "-" on line 1, or indent it by 2 spaces, as "a:" on line 1`}},
		{"apostrophe in single quotes", "description: 'it's mine'\n",
			hint{1, 17, `this ' ends the string that the ' at column 14 opens: inside '...', write a ' twice (''), or quote ` +
				`the string with " instead`}},
		{"apostrophe in single quotes in a list", "args: ['don't']\n",
			hint{1, 12, `this ' ends the string that the ' at column 8 opens: inside '...', write a ' twice (''), or quote ` +
				`the string with " instead`}},
		{"unknown escape", "path: \"data\\set\"\n", hint{1, 12,
			`\s is not an escape YAML knows inside "...": write \\ for a backslash, or quote the string with ' instead`}},
		{"JSON's escaped slash, which the decoder does not know", "url: \"http:\\/\\/x\"\n", hint{1, 12,
			`\/ is not an escape YAML knows inside "...": write \\ for a backslash, or quote the string with ' instead`}},
		{"short unicode escape", "path: [\"C:\\Users\"]\n", hint{1, 11,
			`\U is not an escape YAML knows inside "...": write \\ for a backslash, or quote the string with ' instead`}},
		{"reserved character", "a: @x\n", hint{1, 4, `a plain value cannot start with @: put the value in quotes`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := extractYAML("f.yaml", []byte(tc.src)); err == nil {
				t.Fatalf("the decoder accepts %q", tc.src)
			}
			got, ok := findSlip([]byte(tc.src))
			if !ok {
				t.Fatalf("no slip found in %q", tc.src)
			}
			if diff := cmp.Diff(tc.want, hintOf(got), cmp.AllowUnexported(hint{})); diff != "" {
				t.Errorf("%q (-want +got):\n%s", tc.src, diff)
			}
		})
	}
}

// Valid YAML, however it is written, has no slip: findSlip runs only on
// files the decoder refuses, but a slip it saw in valid YAML would hide
// the real mistake further down.
func TestNoSlipInValidYAML(t *testing.T) {
	srcs := []string{
		"description: a long\n  text that goes on:no, it's fine\n  - and on\nname: x\n",
		"a: \"multi\n  line\"\nb: 'it''s'\n",
		"a:\n- x\n- y\nb:\n  - - c\n    - d\n  -   e: 1\n      f: 2\n",
		"script: |\n  echo a: b\n  \ta tab after the indentation: ok\n    [not a list\nafter: >-\n  x\n",
		"a: [x,\n  y, {b: c},\n  \"d]\"]\nb: {\"k\":\"v]\", 'q': [1]}\n",
		"url: http://x:80/y\nimage: repo/x:1.0 # comment: here\nkey:\tvalue\n",
		"anchor: &a {x: 1}\nother: *a\ntagged: !!str 1\nseq: !!seq\n- a\n",
		"# only: a comment\n---\na: 1\n...\n---\nb: 2\n",
		"- a\n- b: 1\n  c: 2\n-\n  d: 3\n",
		"a: it's\nb: don't\nc: [it's, fine]\n",
		"k: \"a\\\"b\" # c\n",
		"e: \"\\x41\\u00e9\\U0001F600\\t\\\\ \\\"\"\n",
		"0\n\t0\n", "a:\n  text\n \tmore\n", "a: b\n \tc\n", // a tab after the spaces that continue a plain value
	}
	for _, src := range srcs {
		if _, err := extractYAML("f.yaml", []byte(src)); err != nil {
			t.Errorf("the decoder refuses %q: %v", src, err)
		}
		if s, ok := findSlip([]byte(src)); ok {
			t.Errorf("%q: %+v", src, s)
		}
	}
	for path, src := range validYAMLFiles(t) {
		if s, ok := findSlip(src); ok {
			t.Errorf("%s: %+v", path, s)
		}
	}
}

// validYAMLFiles reads every YAML file of the repository (specs, golden
// manifests) and of ../shared/cubes that go-yaml reads.
func validYAMLFiles(t *testing.T) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, root := range []string{"../../..", "../../../../shared/cubes"} {
		_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && path != root || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			if d.IsDir() || !(strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")) {
				return nil
			}
			if src, err := os.ReadFile(path); err == nil && len(src) < 1<<22 && decodes(src) {
				out[path] = normalizeNewlines(src)
			}
			return nil
		})
	}
	t.Logf("%d valid YAML files", len(out))
	if len(out) < 100 {
		t.Errorf("only %d valid YAML files found", len(out))
	}
	return out
}

// decodes reports whether every document of src is valid YAML.
func decodes(src []byte) bool {
	dec := yamlv3.NewDecoder(bytes.NewReader(src))
	for {
		var n yamlv3.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return true
		}
		if err != nil {
			return false
		}
	}
}

// FuzzYAMLSlip: whatever findSlip reports is inside the file, the same
// twice, and never about a file the decoder reads.
func FuzzYAMLSlip(f *testing.F) {
	spectest.AddSeeds(f, "../../..", ".yaml")
	for _, seed := range []string{"a:\n\tb: 1\n", "a: [b, {c: \"d}\n", "a: b: c\n", "x:y\n"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		src = normalizeNewlines(src) // as ParseYAML does
		s, ok := findSlip(src)
		again, ok2 := findSlip(src)
		if s != again || ok != ok2 {
			t.Fatalf("%+v then %+v", s, again)
		}
		if _, err := extractYAML("f.yaml", src); ok && err == nil {
			t.Fatalf("a slip in YAML the decoder reads: %+v", s)
		}
		lines := bytes.Split(src, []byte("\n"))
		if ok && (s.line < 1 || s.line > len(lines) || s.col < 1 || s.col > len(lines[s.line-1])+1 || s.msg == "") {
			t.Fatalf("slip outside the file: %+v", s)
		}
	})
}
