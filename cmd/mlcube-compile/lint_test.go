package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mlcube-compile/mlcube-compile/diag"
)

// githubCommand is a GitHub Actions workflow command as the runner reads
// it: ::error or ::warning, properties with their separators escaped, and
// a message with its newlines escaped.
var githubCommand = regexp.MustCompile(`^::(error|warning|notice) file=[^,:\n]+` +
	`(,line=[1-9]\d*,col=[1-9]\d*)?(,title=[^,:\n]+)?::[^\r\n]+$`)

// TestLintBadCorpus lints every bad-input case at once: each case's
// errors appear, every github line is a valid workflow command, and
// the JSON report says the same as the text one.
func TestLintBadCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped with -short: it lints the whole bad-input corpus, about 2 s")
	}
	root := filepath.Join(repoRoot, "testdata", "bad")
	text, stderr, code := compileArgs(t, "mlcube-compile", "lint", root)
	if code != exitBadSpec || stderr != "" {
		t.Fatalf("exit %d, want %d; stderr %q", code, exitBadSpec, stderr)
	}
	for _, c := range []string{"three-errors-in-one-run/pipeline.yaml:12:41", "wrong-type-cube/mlcube.yaml:",
		"configs-credential/pipeline.yaml:8:5"} {
		if !strings.Contains(text, c) {
			t.Errorf("no problem reported at %s", c)
		}
	}
	gh, _, code := compileArgs(t, "mlcube-compile", "lint", "--format", "github", root)
	lines := strings.Split(strings.TrimSuffix(gh, "\n"), "\n")
	if code != exitBadSpec || len(lines) < 100 {
		t.Fatalf("exit %d, %d lines", code, len(lines))
	}
	for _, l := range lines[:len(lines)-1] {
		if !githubCommand.MatchString(l) {
			t.Errorf("not a workflow command: %q", l)
		}
	}
	if last := lines[len(lines)-1]; last != strings.Split(
		strings.TrimSpace(text), "\n")[len(strings.Split(strings.TrimSpace(text), "\n"))-1] {
		t.Errorf("summaries differ: %q", last)
	}
	js, _, _ := compileArgs(t, "mlcube-compile", "lint", "--format", "json", root)
	var problems []diag.Problem
	if err := json.Unmarshal([]byte(js), &problems); err != nil {
		t.Fatal(err)
	}
	// One annotation a problem; its related places are lines of its
	// message.
	var want []string
	for _, p := range problems {
		want = append(want, "::"+strings.Replace(p.Severity, "note", "notice", 1)+" file="+diag.GitHubProperty(p.File))
	}
	if len(want) != len(lines)-1 {
		t.Fatalf("%d JSON problems, %d github lines", len(want), len(lines)-1)
	}
	for i, p := range problems {
		if !strings.HasPrefix(lines[i], want[i]) {
			t.Errorf("line %d: %q does not match %q", i, lines[i], want[i])
		}
		for _, r := range p.Related {
			if at := fmt.Sprintf("%%0A%s:%d:%d: note: ", r.File, r.Line, r.Column); !strings.Contains(lines[i], at) {
				t.Errorf("line %d: %q does not hold its related place %s", i, lines[i], at)
			}
		}
	}
}

// TestLintIsDeterministic lints in parallel and wants the same bytes.
func TestLintIsDeterministic(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped with -short: it lints the corpus and the examples repeatedly, about 3 s")
	}
	args := []string{"mlcube-compile", "lint", filepath.Join(repoRoot, "examples"),
		filepath.Join(repoRoot, "testdata", "bad")}
	first, _, _ := compileArgs(t, args...)
	for i := 0; i < 3; i++ {
		if again, _, _ := compileArgs(t, args...); again != first {
			t.Fatalf("run %d differs", i+2)
		}
	}
}
