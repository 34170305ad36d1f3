package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mlcube-compile/mlcube-compile/diag"
)

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
