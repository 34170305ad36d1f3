package docs_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// maxGuideWords bounds a sentence of docs/guide.md, a new user's first
// page: a sentence longer than this is split.
const maxGuideWords = 40

// sentenceEnd is where a sentence ends: ., ! or ? before a space and
// what starts one.
var sentenceEnd = regexp.MustCompile("([.!?]) +([A-Z`*(\\[])")

// guideSentences are the sentences of a Markdown page's prose: its
// paragraphs and list items, without code blocks, tables and headings.
func guideSentences(text string) []string {
	var blocks []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			blocks = append(blocks, strings.Join(cur, " "))
			cur = nil
		}
	}
	inCode := false
	item := regexp.MustCompile(`^(- |\d+\. )`)
	for _, line := range strings.Split(text, "\n") {
		l := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(l, "```"):
			inCode = !inCode
			flush()
		case inCode:
		case l == "", strings.HasPrefix(l, "|"), strings.HasPrefix(l, "#"):
			flush()
		case item.MatchString(l):
			flush()
			cur = []string{item.ReplaceAllString(l, "")}
		default:
			cur = append(cur, l)
		}
	}
	flush()
	var out []string
	for _, b := range blocks {
		out = append(out, strings.Split(sentenceEnd.ReplaceAllString(b, "$1\n$2"), "\n")...)
	}
	return out
}

// The user guide's sentences stay short enough to read at once.
func TestGuideSentences(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(repoRoot, "docs", "guide.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range guideSentences(string(raw)) {
		if n := len(strings.Fields(s)); n > maxGuideWords {
			t.Errorf("docs/guide.md: a sentence of %d words, more than %d; split it: %s", n, maxGuideWords, s)
		}
	}
	if n := len(guideSentences("One. Two?\n```\nno.\n```\n| a. | B |\n- Three. Four")); n != 4 {
		t.Errorf("guideSentences found %d sentences in the sample, want 4", n)
	}
}

// The README's set-up says, beside its first command, how long the
// first run takes: it builds everything, which a new user would
// otherwise take for a hang.
func TestReadmeFirstRunTime(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	setup, _, _ := strings.Cut(string(raw), "## Quickstart")
	_, setup, _ = strings.Cut(setup, "## Set up")
	if !regexp.MustCompile(`(?s)first run[^.]* about \d+ minutes on a \d-core machine`).MatchString(setup) {
		t.Errorf("README.md's Set up says not how long the first run takes (about N minutes on an N-core "+
			"machine):\n%s", setup)
	}
}
