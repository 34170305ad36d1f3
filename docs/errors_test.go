package docs_test

// docs/errors.md, the catalogue of errors, is rendered from the bad-input
// corpus (testdata/bad: each case with the exact stderr it gives), so it
// shows every error class as the command prints it today.
// TestErrorsDoc fails when the committed file is stale; -update (make
// golden) rewrites it.

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
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
	// Every code the corpus gives has a section, saying what to do, in
	// troubleshooting.md.
	help, err := os.ReadFile(filepath.Join(repoRoot, "docs", "troubleshooting.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, code := range regexp.MustCompile(`\[(MLC\d{3})\]`).FindAllStringSubmatch(want, -1) {
		if !strings.Contains(string(help), "\n### "+code[1]+": ") {
			t.Errorf("docs/troubleshooting.md has no section for %s, which docs/errors.md shows: say what to do "+
				"about it", code[1])
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
	b.WriteString("<!-- Generated from testdata/bad by TestErrorsDoc (docs/errors_test.go); do not " +
		"edit. Rewrite with make golden. -->\n\n")
	b.WriteString("# Errors, as the command prints them\n\n")
	b.WriteString("Every kind of mistake the test corpus holds (`testdata/bad/NAME`: the spec files, and the exact\n")
	b.WriteString("stderr they give, exit code 1), grouped by the first word of the case's name. What to do about\n")
	b.WriteString("each code (the `[MLCnnn]` that ends a line) is in [troubleshooting.md](troubleshooting.md).\n")
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
