package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlcube-compile/mlcube-compile/diag"
)

// Every edit a fix of the bad-input corpus carries applies: at its file,
// line and column the text it replaces is written, bare or quoted, so
// that an editor (or lint) can make it. A fix whose place is not the name
// it mends must carry advice alone.
func TestFixEditsApply(t *testing.T) {
	root := filepath.Join(repoRoot, "testdata", "bad")
	cases, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	edits := 0
	for _, c := range cases {
		src := filepath.Join(root, c.Name())
		dir := copyCase(t, src)
		_, stderr, _ := compileArgs(t, append(caseArgs(t, src, dir), "--error-format", "json")...)
		var problems []diag.Problem
		if err := json.Unmarshal([]byte(stderr), &problems); err != nil {
			t.Errorf("%s: %v\n%s", c.Name(), err, stderr)
			continue
		}
		for _, p := range problems {
			for _, f := range p.Fixes {
				for _, e := range f.Edits {
					edits++
					if at := textAt(t, dir, e); !strings.HasPrefix(at, e.Old) && !strings.HasPrefix(at, `"`+e.Old+`"`) &&
						!strings.HasPrefix(at, "'"+e.Old+"'") {
						t.Errorf("%s: %s:%d:%d: the edit %q → %q does not apply: the text there is %q", c.Name(), e.File, e.Line,
							e.Column, e.Old, e.New, at)
					}
				}
			}
		}
	}
	if edits < 5 {
		t.Errorf("%d edits in the corpus, want at least 5", edits)
	}
}

// textAt is the rest of the line an edit's place starts, in the case's
// folder dir.
func textAt(t *testing.T, dir string, e diag.EditProblem) string {
	name := e.File
	if !filepath.IsAbs(name) {
		name = filepath.Join(dir, name)
	}
	b, err := os.ReadFile(name)
	if err != nil {
		t.Errorf("the edit's file: %v", err)
		return ""
	}
	lines := strings.Split(string(b), "\n")
	if e.Line < 1 || e.Line > len(lines) || e.Column < 1 || e.Column > len(lines[e.Line-1])+1 {
		return ""
	}
	return lines[e.Line-1][e.Column-1:]
}
