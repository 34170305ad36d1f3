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

// checks are the rules, in the order docs and messages number them.
var checks = []struct {
	name  string
	check func(*tree) []violation
}{
	{"1_func_length", checkFuncLength},
	{"2_file_length", checkFileLength},
	{"3_doc_go", checkDocGo},
	{"4_import_flow", func(tr *tree) []violation { return append(checkImports(tr), checkTable(tr)...) }},
	{"5_only_source_opens_files", checkOpens},
	{"6_only_cmd_prints", checkPrints},
	{"7_driver_names_no_engine", checkEngineNames},
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
		"diag/long_test.go":            file("package diag\n\n" + long),
		"newpkg/new.go":                file("package newpkg\n"),
		"backends/argo/doc.go":         file("// Package argo.\npackage argo\n\nimport _ \"cuelang.org/go/cue\"\n"),
		"backends/argo/engine.go":      file("package argo\n\ntype Engine struct{}\n\nfunc (Engine) Name() string { return \"argo\" }\n"),
		"driver/doc.go":                file("// Package driver.\npackage driver\n\nvar _, _, _ = \"argo\", \"argo: refused\", \"argonaut\"\n"),
		"driver/x_test.go":             file("package driver\n\nvar _ = \"argo\"\n"),
		"lint/doc.go":                  file("// Package lint: see find.go.\npackage lint\n"),
		"newpkg/doc.go":                file(strings.Repeat("// Package newpkg.\n", maxDocLines+1) + "package newpkg\n"),
		"lint/find.go":                 file("package lint\n\nimport (\n\t\"os\"\n\t\"path/filepath\"\n)\n\nvar _, _ = os.Stat, filepath.WalkDir\n\nvar _ = os.ReadFile\n"),
		"lint/say.go":                  file(say),
		"cmd/mlcube-compile/doc.go":    file("// Command mlcube-compile.\npackage main\n"),
		"cmd/mlcube-compile/main.go":   file("package main\n\nimport (\n\t\"fmt\"\n\t\"os\"\n)\n\nfunc main() { fmt.Println(os.ReadFile(\"x\")) }\n"),
		"cmd/mlcube-compile/x_test.go": file("package main\n\nimport \"example.com/m/lint\"\n"),
		"testdata/bad.go":              file("not Go"),
		".e2e/bad.go":                  file("not Go"),
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
		"diag/long.go:4 rule 1 long",
		fmt.Sprintf("diag/long.go:%d rule 2 ", maxFileLines+1),
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
