package main

// docs/troubleshooting.md's errors and warnings, one section a code, are
// rendered from diag.ErrorCodes() and diag.Codes(); TestTroubleshootingDoc
// fails when a committed section is stale, and -update (make golden)
// rewrites it.

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mlcube-compile/mlcube-compile/diag"
	"github.com/mlcube-compile/mlcube-compile/internal/golden"
)

// generated are the parts of docs/troubleshooting.md made from the codes:
// each between its begin and end comments.
var generated = []struct {
	what, from string
	codes      func() []diag.CodeDoc
}{
	{"errors", "diag.ErrorCodes()", diag.ErrorCodes},
	{"warnings", "diag.Codes()", diag.Codes},
}

func TestTroubleshootingDoc(t *testing.T) {
	path := filepath.Join(repoRoot, "docs", "troubleshooting.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := string(doc)
	for _, g := range generated {
		begin := "<!-- The " + g.what + ", generated from " + g.from +
			" by TestTroubleshootingDoc (cmd/mlcube-compile/codesdoc_test.go); do not edit between these lines. Rewrite with " +
			"make golden. -->"
		end := "<!-- End of the generated " + g.what + ". -->"
		before, rest, ok1 := strings.Cut(out, begin)
		_, after, ok2 := strings.Cut(rest, end)
		if !ok1 || !ok2 {
			t.Fatalf("%s has no generated %s between %q and %q", path, g.what, begin, end)
		}
		out = before + begin + "\n" + renderCodes(g.codes()) + end + after
	}
	golden.Compare(t, []byte(out), path, *update)
}

// renderCodes is a section per code: its title, a note's after "(a
// note)", and what to do.
func renderCodes(codes []diag.CodeDoc) string {
	var b strings.Builder
	for _, c := range codes {
		title := c.Title
		if c.Severity == diag.Note {
			title = "(a note) " + title
		}
		fmt.Fprintf(&b, "\n### %s: %s\n\n%s\n", c.Code, title, c.Fix)
	}
	return b.String() + "\n"
}

// Every code is given by some diagnostic of the source, and every error
// and warning the corpus and the examples give has a code.
func TestEveryDiagnosticHasACode(t *testing.T) {
	used := usedIdentifiers(t)
	files, err := filepath.Glob(filepath.Join(repoRoot, "diag", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	constants := 0
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range regexp.MustCompile(`(?m)^\t(\w+)\s+Code = "(MLC\d+)"`).FindAllStringSubmatch(string(src), -1) {
			constants++
			if !used["diag."+m[1]] {
				t.Errorf("%s (%s) is given by no diagnostic: drop it and its row from diag/%s", m[2], m[1],
					filepath.Base(file))
			}
		}
	}
	if all := len(diag.Codes()) + len(diag.ErrorCodes()); constants != all {
		t.Errorf("%d constants of diag.Code read, and %d codes in the table", constants, all)
	}
	out, _, _ := compileArgs(t, "mlcube-compile", "lint", filepath.Join(repoRoot, "examples"),
		filepath.Join(repoRoot, "testdata", "bad"))
	coded := regexp.MustCompile(` \[MLC\d{3}\]$`)
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, ": note: ") || !regexp.MustCompile(`^\S+:\d+:\d+: |^\S+: `).MatchString(line) {
			continue
		}
		if !coded.MatchString(line) {
			t.Errorf("a diagnostic without a code: %s", line)
		}
	}
}

// usedIdentifiers are the diag.Name selectors written in the non-test Go
// files of the repository.
func usedIdentifiers(t *testing.T) map[string]bool {
	used := map[string]bool{}
	sel := regexp.MustCompile(`\bdiag\.[A-Z]\w*`)
	err := filepath.WalkDir(repoRoot, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			if d != nil && d.IsDir() && path != repoRoot {
				return filepath.SkipDir
			}
			return err
		}
		if strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, m := range sel.FindAllString(string(b), -1) {
				used[m] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return used
}
