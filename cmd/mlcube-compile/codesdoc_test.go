package main

// docs/troubleshooting.md's warnings, one section a code, are rendered
// from diag.Codes(); TestTroubleshootingDoc fails when the committed
// section is stale, and -update (make golden) rewrites it.

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

const (
	codesBegin = "<!-- The warnings, generated from diag.Codes() by TestTroubleshootingDoc (cmd/mlcube-compile/codesdoc_test.go); do not edit between these lines. Rewrite with make golden. -->"
	codesEnd   = "<!-- End of the generated warnings. -->"
)

func TestTroubleshootingDoc(t *testing.T) {
	path := filepath.Join(repoRoot, "docs", "troubleshooting.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	before, rest, ok1 := strings.Cut(string(doc), codesBegin)
	_, after, ok2 := strings.Cut(rest, codesEnd)
	if !ok1 || !ok2 {
		t.Fatalf("%s has no generated warnings between %q and %q", path, codesBegin, codesEnd)
	}
	golden.Compare(t, []byte(before+codesBegin+"\n"+renderCodes()+codesEnd+after), path, *update)
}

// renderCodes is a section per code: its title, and what to do.
func renderCodes() string {
	var b strings.Builder
	for _, c := range diag.Codes() {
		fmt.Fprintf(&b, "\n### %s: %s\n\n%s\n", c.Code, c.Title, c.Fix)
	}
	return b.String() + "\n"
}

// Every code is given by some warning of the source, and every warning
// the corpus and the examples give has a code.
func TestEveryWarningHasACode(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(repoRoot, "diag", "codes.go"))
	if err != nil {
		t.Fatal(err)
	}
	used := usedIdentifiers(t)
	for _, m := range regexp.MustCompile(`(?m)^\t(\w+)\s+Code = "(MLC\d+)"`).FindAllStringSubmatch(string(src), -1) {
		if !used["diag."+m[1]] {
			t.Errorf("%s (%s) is given by no warning: drop it from diag/codes.go and codedocs.go", m[2], m[1])
		}
	}
	out, _, _ := compileArgs(t, "mlcube-compile", "lint", filepath.Join(repoRoot, "examples"), filepath.Join(repoRoot, "testdata", "bad"))
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, ": warning: ") && !regexp.MustCompile(` \[MLC\d{3}\]$`).MatchString(line) {
			t.Errorf("a warning without a code: %s", line)
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
