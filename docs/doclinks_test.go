package docs_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// markdownLink finds [text](target) links; targets with a scheme are left
// alone.
var markdownLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// codeSpan is inline code, whose brackets are not links either.
var codeSpan = regexp.MustCompile("`[^`\n]*`")

// TestDocLinks checks that every relative link of the README and of
// docs/ names a file that exists and, with #anchor, a heading in it.
func TestDocLinks(t *testing.T) {
	pages, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob(filepath.Join(repoRoot, "docs", "reference", "*.md"))
	pages = append(append(pages, more...), filepath.Join(repoRoot, "README.md"))
	checked := 0
	for _, page := range pages {
		text := readText(t, page)
		for _, m := range markdownLink.FindAllStringSubmatch(codeSpan.ReplaceAllString(stripCode(text), "``"), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			dest := page
			if file != "" {
				dest = filepath.Join(filepath.Dir(page), file)
			}
			rel, _ := filepath.Rel(repoRoot, page)
			if _, err := os.Stat(dest); err != nil {
				t.Errorf("%s: link %s: no such file", rel, target)
				continue
			}
			checked++
			if anchor != "" && !anchors(readText(t, dest))[anchor] {
				t.Errorf("%s: link %s: no heading with that anchor", rel, target)
			}
		}
	}
	if checked < 20 {
		t.Errorf("checked %d links, want the README's and docs' links", checked)
	}
}

func readText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// stripCode drops fenced code blocks, whose brackets are not links.
func stripCode(text string) string {
	var out []string
	in := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			in = !in
			continue
		}
		if !in {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}

// anchors are the GitHub anchors of a page's headings: lower case, spaces
// to '-', and everything but letters, digits, '-' and '_' dropped.
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	for _, line := range strings.Split(stripCode(text), "\n") {
		if !strings.HasPrefix(line, "#") {
			continue
		}
		h := strings.ToLower(strings.TrimSpace(strings.TrimLeft(line, "#")))
		var b strings.Builder
		for _, r := range h {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
				b.WriteRune(r)
			}
		}
		out[b.String()] = true
	}
	return out
}

// outputOnSpec is a command line of the docs that writes its output to
// a file named as a spec (> pipeline.yaml, -o platform.yaml, tee
// mlcube.yaml): run in the spec's folder, it would empty or replace the
// spec it reads.
var outputOnSpec = regexp.MustCompile(`(>|\btee|-o|--output)[ =]+(\S*/)?` +
	`(pipeline|platform|mlcube|container_config|values|\.mlcube)\.ya?ml\b`)

// TestDocsWriteNoSpec checks that no command line of the README or docs/
// writes its output onto a file named as a spec.
func TestDocsWriteNoSpec(t *testing.T) {
	pages, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, page := range append(pages, filepath.Join(repoRoot, "README.md")) {
		for i, line := range strings.Split(readText(t, page), "\n") {
			if m := outputOnSpec.FindString(line); m != "" {
				rel, _ := filepath.Rel(repoRoot, page)
				t.Errorf("%s:%d: %q writes the output onto a file named as a spec; name it after what it holds (workflow.yaml, "+
					"tekton-pipeline.yaml)", rel, i+1, m)
			}
		}
	}
}
