package source

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/mlcube-compile/mlcube-compile/diag"
)

// TestDisableNode checks which warnings a disable comment silences: one
// placed in the node (mapping entry or list item) a line of which the
// comment is on, or the node below a comment alone on its line; not a
// sibling's, nor one of another code.
func TestDisableNode(t *testing.T) {
	src := `steps:
  train:
    task: train
    retries:                         # mlcube-compile: disable MLC625
      limit: 2
      backoff: 30s
    tolerations:
      - key: a
        operator: Exists             # mlcube-compile: disable MLC201
      - key: b
        operator: Exists
  # mlcube-compile: disable MLC202
  eval:
    task: eval
    run: |
      one
      two
`
	files := New(fstest.MapFS{"p.yaml": {Data: []byte(src)}})
	dis := files.ReadDisabled("p.yaml")
	if len(dis.Comments) != 3 {
		t.Fatalf("%d comments, want 3: %+v", len(dis.Comments), dis.Comments)
	}
	silenced := func(code diag.Code, line, col int, field string) bool {
		for _, c := range dis.Comments {
			if c.Code == code && dis.Silences(c, diag.Pos{File: "p.yaml", Line: line, Col: col}, field) {
				return true
			}
		}
		return false
	}
	for _, tc := range []struct {
		code      diag.Code
		line, col int
		field     string
		want      bool
	}{
		{"MLC625", 2, 3, "steps.train", true},                     // the step's node holds the comment's line
		{"MLC625", 4, 5, "steps.train.retries", true},             // the comment's own node
		{"MLC625", 6, 7, "steps.train.retries.backoff", false},    // a node below the comment's line
		{"MLC625", 3, 5, "steps.train.task", false},               // a sibling
		{"MLC201", 8, 9, "steps.train.tolerations[0]", true},      // the list item
		{"MLC201", 10, 9, "steps.train.tolerations[1]", false},    // another item
		{"MLC201", 8, 9, "steps.train.tolerations[0].key", false}, // the key on the item's first line, one line long
		{"MLC202", 13, 3, "steps.eval", true},                     // alone on the line above the node
		{"MLC202", 14, 5, "steps.eval.task", false},               // not inside it
		{"MLC625", 13, 3, "steps.eval", false},                    // another node
		{"MLC201", 0, 0, "", false},                               // the whole file, with no disable-file
	} {
		if got := silenced(tc.code, tc.line, tc.col, tc.field); got != tc.want {
			t.Errorf("%s at %d:%d %s: silenced %v, want %v", tc.code, tc.line, tc.col, tc.field, got, tc.want)
		}
	}
}

// A disable comment's place counts characters, as the YAML decoder counts
// the columns of the warnings it is judged against and lint --fix edits
// at: after "é" the code is one column on, not two.
func TestDisableCommentColumnInCharacters(t *testing.T) {
	src := "name: \"café\" # mlcube-compile: disable MLC2O1\n"
	dis := New(fstest.MapFS{"p.yaml": {Data: []byte(src)}}).ReadDisabled("p.yaml")
	if len(dis.Unknown) != 1 {
		t.Fatalf("%d unknown codes, want 1", len(dis.Unknown))
	}
	if got, want := dis.Unknown[0].Pos.Col, len([]rune(src[:strings.Index(src, "MLC2O1")]))+1; got != want {
		t.Errorf("MLC2O1 at column %d, want %d (characters)", got, want)
	}
}
