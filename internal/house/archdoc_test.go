package house

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The package list of docs/ARCHITECTURE.md is checked against flow, the
// table rule 4 enforces, so that the prose cannot drift from the code:
// its diagram ("The flow") names packages in an order where each imports
// only packages above it; every package the diagram names is in flow;
// and every package of flow is named somewhere in the document.

// diagramLine is a line of the diagram that names a package: four spaces,
// then the package's folder (a trailing / allowed), then a space.
var diagramLine = regexp.MustCompile(`^    ([a-z][a-z0-9_/-]*[a-z0-9])/?(?:\s|$)`)

// diagramPackages are the packages the diagram of doc names, in order.
func diagramPackages(doc string) []string {
	_, rest, _ := strings.Cut(doc, "## The flow")
	diagram, _, _ := strings.Cut(rest, "\n## ")
	var out []string
	for _, line := range strings.Split(diagram, "\n") {
		if m := diagramLine.FindStringSubmatch(line); m != nil {
			out = append(out, m[1])
		}
	}
	return out
}

// checkArchDoc returns what doc says that the table flow does not.
func checkArchDoc(doc string, flow map[string][]string) []string {
	var problems []string
	listed := diagramPackages(doc)
	for i, pkg := range listed {
		imports, ok := flow[pkg]
		if !ok {
			problems = append(problems, fmt.Sprintf("the flow diagram names %s, which is no package of the import table", pkg))
			continue
		}
		for _, imp := range imports {
			if j := slices.Index(listed, imp); j > i {
				problems = append(problems, fmt.Sprintf("the flow diagram lists %s below %s, which imports it; a package imports "+
					"only packages above it", imp, pkg))
			}
		}
	}
	for _, pkg := range sortedKeys(flow) {
		if !slices.Contains(listed, pkg) && !strings.Contains(doc, "`"+pkg+"`") && !strings.Contains(doc, "`"+pkg+"/`") {
			problems = append(problems,
				fmt.Sprintf("%s is in the import table but nowhere in the document (the diagram, or in backquotes)", pkg))
		}
	}
	return problems
}

func sortedKeys(m map[string][]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func TestArchitectureDoc(t *testing.T) {
	root := filepath.Join("..", "..")
	doc, err := os.ReadFile(filepath.Join(root, "docs", "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(diagramPackages(string(doc))); n < 10 {
		t.Fatalf("docs/ARCHITECTURE.md: the flow diagram names %d packages; is its heading still \"## The flow\"?", n)
	}
	for _, p := range checkArchDoc(string(doc), flow) {
		t.Error("docs/ARCHITECTURE.md: " + p)
	}
}

// TestArchitectureDocCatches checks checkArchDoc on a small document that
// breaks each of its rules once.
func TestArchitectureDocCatches(t *testing.T) {
	table := map[string][]string{"diag": {}, "ir": {"diag"}, "spec": {"diag", "ir"}, "bench": {}}
	doc := "# A\n\n## The flow\n\n    diag/    what\n        │\n    spec     reads ir\n    ir       types\n" +
		"    gone/    old\n\n## Rules\n"
	got := checkArchDoc(doc, table)
	want := []string{
		"the flow diagram lists ir below spec, which imports it; a package imports only packages above it",
		"the flow diagram names gone, which is no package of the import table",
		"bench is in the import table but nowhere in the document (the diagram, or in backquotes)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := checkArchDoc(doc+"`bench` and\n", table); len(got) != 2 {
		t.Errorf("a package in backquotes is named: %q", got)
	}
}

// exported are the exported names package dir declares in its non-test
// files: its functions, types, constants and variables, and the methods
// of its exported types, as Type.Method.
func exported(t *testing.T, dir string) []string {
	t.Helper()
	fset := token.NewFileSet()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, exportedOf(f)...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// surfaceName is a name of the compiler's surface as the section writes
// it: `Name`, or `Type.Method`.
var surfaceName = regexp.MustCompile("`([A-Z][A-Za-z]*(?:\\.[A-Z][A-Za-z]*)?)`")

// The compiler's exported surface is what docs/ARCHITECTURE.md's section
// says it is: every exported name in it, and nothing else.
func TestCompilerSurface(t *testing.T) {
	root := filepath.Join("..", "..")
	doc, err := os.ReadFile(filepath.Join(root, "docs", "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "\n## The compiler's surface\n")
	if !ok {
		t.Fatal("docs/ARCHITECTURE.md has no section \"## The compiler's surface\"")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var said []string
	for _, m := range surfaceName.FindAllStringSubmatch(section, -1) {
		said = append(said, m[1])
	}
	slices.Sort(said)
	said = slices.Compact(said)
	have := exported(t, filepath.Join(root, "compiler"))
	for _, name := range have {
		if !slices.Contains(said, name) {
			t.Errorf("compiler exports %s, which docs/ARCHITECTURE.md's surface does not name", name)
		}
	}
	for _, name := range said {
		if !slices.Contains(have, name) {
			t.Errorf("docs/ARCHITECTURE.md's surface names %s, which compiler does not export", name)
		}
	}
}

// exportedOf are the exported names f declares, methods as Type.Method.
func exportedOf(f *ast.File) []string {
	var out []string
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			name := d.Name.Name
			if d.Recv != nil {
				recv := d.Recv.List[0].Type
				if star, ok := recv.(*ast.StarExpr); ok {
					recv = star.X
				}
				id, ok := recv.(*ast.Ident)
				if !ok || !id.IsExported() {
					continue
				}
				name = id.Name + "." + name
			}
			if d.Name.IsExported() {
				out = append(out, name)
			}
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					if s.Name.IsExported() {
						out = append(out, s.Name.Name)
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.IsExported() {
							out = append(out, n.Name)
						}
					}
				}
			}
		}
	}
	return out
}

// passName is a pass's name in compiler/internal/passes' Table.
var passName = regexp.MustCompile(`\{Name: "([a-z-]+)"`)

// The table of docs/ARCHITECTURE.md's "The passes" lists the passes of
// passes.Table, in its order.
func TestPassesTable(t *testing.T) {
	root := filepath.Join("..", "..")
	src, err := os.ReadFile(filepath.Join(root, "compiler", "internal", "passes", "passes.go"))
	if err != nil {
		t.Fatal(err)
	}
	var table []string
	for _, m := range passName.FindAllStringSubmatch(string(src), -1) {
		table = append(table, m[1])
	}
	doc, err := os.ReadFile(filepath.Join(root, "docs", "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(doc), "\n## The passes\n")
	section, _, _ = strings.Cut(section, "\n## ")
	var rows []string
	for _, line := range strings.Split(section, "\n") {
		if name, _, ok := strings.Cut(strings.TrimPrefix(line, "| "), " |"); ok && strings.HasPrefix(line, "| ") &&
			name != "pass" && !strings.HasPrefix(name, "---") {
			rows = append(rows, name)
		}
	}
	if len(table) < 5 || !slices.Equal(rows, table) {
		t.Errorf("docs/ARCHITECTURE.md's passes are %v; passes.Table's are %v, in that order", rows, table)
	}
}
