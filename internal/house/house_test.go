package house

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

// checks are the rules, in the order docs and messages number them. The
// sizes of functions and files (1 and 2) are a report (TestSizeReport):
// no code is split for a cap alone.
var checks = []struct {
	name  string
	check func(*tree) []violation
}{
	{"3_doc_go", checkDocGo},
	{"4_import_flow", func(tr *tree) []violation { return append(checkImports(tr), checkTable(tr)...) }},
	{"5_only_source_opens_files", checkOpens},
	{"6_only_cmd_prints", checkPrints},
	{"7_driver_names_no_engine", checkEngineNames},
	{"8_line_width", checkLineWidth},
}

// TestSizeReport reports the functions and files over their sizes (rules
// 1 and 2): where a function or file has grown past what reads at once,
// for a reader to judge; never a failure.
func TestSizeReport(t *testing.T) {
	tr := loadRepo(t)
	for _, v := range append(checkFuncLength(tr), checkFileLength(tr)...) {
		t.Log(v)
	}
}

// TestHouseRules checks the repository's own source against each rule.
// A violation listed in known is not reported, but a listed one that no
// longer happens is, so that the list only shrinks.
func TestHouseRules(t *testing.T) {
	tr := loadRepo(t)
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			seen := map[int]bool{}
			for _, v := range c.check(tr) {
				i := slices.IndexFunc(known, func(k knownViolation) bool {
					return k.rule == v.rule && k.file == v.file() && k.what == v.what
				})
				if i < 0 {
					t.Error(v)
				}
				seen[i] = true
			}
			for i, k := range known {
				if !seen[i] && strings.HasPrefix(c.name, fmt.Sprint(k.rule)+"_") {
					t.Errorf("internal/house/rules_test.go: rule %d (%s): known violation %s %s is gone; remove it from known",
						k.rule, ruleNames[k.rule], k.file, k.what)
				}
			}
		})
	}
}

// loadRepo loads the module this test is in, found upward from here.
func loadRepo(t *testing.T) *tree {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		if filepath.Dir(dir) == dir {
			t.Fatal("no go.mod above the test's folder")
		}
		dir = filepath.Dir(dir)
	}
	tr, err := load(os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestRulesCatch runs every check on a small module that breaks each
// rule, and keeps to each exception, so that a check that stops catching
// what it should, or starts catching what it should not, fails.
func TestRulesCatch(t *testing.T) {
	long := "func long() {\n" + strings.Repeat("\t_ = 0\n", maxFuncLines-1) + "}\n"
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	fsys := fstest.MapFS{
		"go.mod":      file("module example.com/m\n"),
		"diag/doc.go": file("// Package diag.\npackage diag\n\nimport _ \"example.com/m/driver\"\n"),
		// Line 4: a function of maxFuncLines+1 lines; then the file goes past maxFileLines.
		"diag/long.go": file("// Package diag, again.\npackage diag\n\n" + long +
			strings.Repeat("\n", maxFileLines-3-(maxFuncLines+1)) + "var x = 1\n"),
		"diag/long_test.go":    file("package diag\n\n" + long),
		"newpkg/new.go":        file("package newpkg\n"),
		"backends/argo/doc.go": file("// Package argo.\npackage argo\n\nimport _ \"cuelang.org/go/cue\"\n"),
		"backends/argo/engine.go": file("package argo\n\ntype Engine struct{}\n\n" +
			"func (Engine) Name() string { return \"argo\" }\n"),
		"driver/doc.go": file("// Package driver.\npackage driver\n\n" +
			"var _, _, _ = \"argo\", \"argo: refused\", \"argonaut\"\n"),
		"driver/x_test.go": file("package driver\n\nvar _ = \"argo\"\n"),
		"lint/doc.go":      file("// Package lint: see find.go.\npackage lint\n"),
		"newpkg/doc.go":    file(strings.Repeat("// Package newpkg.\n", maxDocLines+1) + "package newpkg\n"),
		"lint/find.go": file("package lint\n\nimport (\n\t\"os\"\n\t\"path/filepath\"\n)\n\n" +
			"var _, _ = os.Stat, filepath.WalkDir\n\nvar _ = os.ReadFile\n"),
		"lint/say.go":               file(say),
		"cmd/mlcube-compile/doc.go": file("// Command mlcube-compile.\npackage main\n"),
		"cmd/mlcube-compile/main.go": file("package main\n\nimport (\n\t\"fmt\"\n\t\"os\"\n)\n\n" +
			"func main() { fmt.Println(os.ReadFile(\"x\")) }\n"),
		"cmd/mlcube-compile/x_test.go": file("package main\n\nimport \"example.com/m/lint\"\n"),
		"testdata/bad.go":              file("not Go"),
		".e2e/bad.go":                  file("not Go"),
		// Rule 8: a line of 121 characters; a table's rows may be longer.
		"lint/wide.go":     file("package lint\n\nvar wide = \"" + strings.Repeat("x", maxLineWidth-12) + "\"\n"),
		"diag/codedocs.go": file("package diag\n\nvar row = \"" + strings.Repeat("x", maxLineWidth) + "\"\n"),
		// A tools' module under the root's path is ours, and checked; another
		// nested module is not.
		"tools/go.mod":      file("module example.com/m/tools\n"),
		"tools/gen/doc.go":  file("// Command gen.\npackage main\n\nimport _ \"example.com/m/driver\"\n"),
		"vendored/go.mod":   file("module example.org/other\n"),
		"vendored/x/bad.go": file("not Go"),
	}
	tr, err := load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range checks {
		for _, v := range c.check(tr) {
			if !strings.Contains(v.msg, "the table lists") { // the real packages are not all here
				got = append(got, fmt.Sprintf("%s rule %d %s", v.at, v.rule, v.what))
			}
		}
	}
	want := []string{
		"lint/wide.go:3 rule 8 ",
		"diag/long.go:1 rule 3 ",
		"lint/doc.go:1 rule 3 find.go",
		"newpkg/doc.go:1 rule 3 ",
		"newpkg/doc.go:15 rule 4 package newpkg",
		"backends/argo/doc.go:4 rule 4 import cuelang.org/go/cue",
		"diag/doc.go:4 rule 4 import driver",
		"tools/gen/doc.go:2 rule 4 package tools/gen",
		"driver/doc.go:4 rule 7 argo",
		"driver/doc.go:4 rule 7 argo: refused",
		"lint/find.go:10 rule 5 os.ReadFile",
		"lint/say.go:10 rule 5 os.Stat",
		"lint/say.go:4 rule 6 import . \"fmt\"",
		"lint/say.go:10 rule 6 l.Print",
		"lint/say.go:10 rule 6 os.Stderr",
		"lint/say.go:10 rule 6 print",
		"lint/say.go:11 rule 6 println",
	}
	slices.Sort(got)
	slices.Sort(want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("violations of the test module (-want +got):\n%s", diff)
	}
	// The size report (rules 1 and 2) still finds the long function and
	// file, and nothing else.
	var sizes []string
	for _, v := range append(checkFuncLength(tr), checkFileLength(tr)...) {
		sizes = append(sizes, fmt.Sprintf("%s rule %d %s", v.at, v.rule, v.what))
	}
	if want := []string{"diag/long.go:4 rule 1 long",
		fmt.Sprintf("diag/long.go:%d rule 2 ", maxFileLines+1)}; !slices.Equal(sizes, want) {
		t.Errorf("the size report: %v, want %v", sizes, want)
	}
}

// say breaks rule 6 in each way, and rule 5 once; its own println method
// is no builtin.
const say = `package lint

import (
	. "fmt"
	l "log"
	"os"
)

func say() {
	l.Print(); print(); Fprintln(os.Stderr); os.Stat("")
	println()
	var t talker
	t.println()
}

type talker struct{}

func (talker) println() {}
`
