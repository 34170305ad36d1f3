package docs_test

// docs/troubleshooting.md's errors and warnings, one section a code, are
// rendered from diag's table of codes; TestTroubleshootingDoc fails when
// a committed section is stale, and -update (make golden) rewrites it.

import (
	"fmt"
	"os"
	"path/filepath"
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
			" by TestTroubleshootingDoc (docs/troubleshooting_test.go); do not edit between these lines. Rewrite with " +
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
