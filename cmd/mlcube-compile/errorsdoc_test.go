package main

// docs/errors.md, the catalogue of errors, is rendered from the bad-input
// corpus (testdata/bad: each case with the exact stderr it gives), so it
// shows every error class as the command prints it today.
// TestErrorsDoc fails when the committed file is stale; -update (make
// golden) rewrites it.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlcube-compile/mlcube-compile/internal/golden"
)

func TestErrorsDoc(t *testing.T) {
	want, err := renderErrorsDoc(filepath.Join(repoRoot, "testdata", "bad"))
	if err != nil {
		t.Fatal(err)
	}
	golden.Compare(t, []byte(want), filepath.Join(repoRoot, "docs", "errors.md"), *update)
	// Every group has a row, saying what to do, in troubleshooting.md.
	help, err := os.ReadFile(filepath.Join(repoRoot, "docs", "troubleshooting.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]bool{}
	for _, line := range strings.Split(string(help), "\n") {
		if first, _, ok := strings.Cut(strings.TrimPrefix(line, "| "), " | "); ok && strings.HasPrefix(line, "| `") {
			for _, g := range strings.Split(first, ", ") {
				rows[strings.Trim(g, "`")] = true
			}
		}
	}
	for _, line := range strings.Split(want, "\n") {
		if g, ok := strings.CutPrefix(line, "## "); ok && !rows[g] {
			t.Errorf("docs/troubleshooting.md has no row for the error class %q of docs/errors.md: say what to do about it", g)
		}
	}
}

// renderErrorsDoc lists each case of the corpus under its group, the
// first word of its folder's name, with its stderr.
func renderErrorsDoc(root string) (string, error) {
	cases, err := os.ReadDir(root)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("<!-- Generated from testdata/bad by TestErrorsDoc (cmd/mlcube-compile/errorsdoc_test.go); do not edit. Rewrite with make golden. -->\n\n")
	b.WriteString("# Errors, as the command prints them\n\n")
	b.WriteString("Every kind of mistake the test corpus holds (`testdata/bad/NAME`: the spec files, and the exact\n")
	b.WriteString("stderr they give, exit code 1), grouped by the first word of the case's name. What to do about\n")
	b.WriteString("each group is in [troubleshooting.md](troubleshooting.md).\n")
	group := ""
	for _, c := range cases {
		if !c.IsDir() {
			continue
		}
		stderr, err := os.ReadFile(filepath.Join(root, c.Name(), "stderr.golden"))
		if err != nil {
			return "", err
		}
		if g, _, _ := strings.Cut(c.Name(), "-"); g != group {
			group = g
			fmt.Fprintf(&b, "\n## %s\n", group)
		}
		fmt.Fprintf(&b, "\n`%s`:\n\n```\n%s\n```\n", c.Name(), strings.TrimRight(string(stderr), "\n"))
	}
	return b.String(), nil
}
