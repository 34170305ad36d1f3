package house

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// goFile is one parsed .go file.
type goFile struct {
	name  string // slash path from the module root, such as "lint/find.go"
	pkg   string // its folder, such as "lint"
	test  bool
	lines int
	// long are the lines over maxLineWidth characters, by number.
	long []int
	f    *ast.File
}

// tree is every .go file of a module.
type tree struct {
	module string
	fset   *token.FileSet
	files  []*goFile
}

// violation is one break of a rule.
type violation struct {
	at   string // file:line
	rule int
	what string // what breaks it: a function, an import, a use; "" for the file
	msg  string
}

func (v violation) String() string {
	return fmt.Sprintf("%s: rule %d (%s): %s", v.at, v.rule, ruleNames[v.rule], v.msg)
}

// file is the file a violation is in.
func (v violation) file() string {
	return strings.Split(v.at, ":")[0]
}

var ruleNames = map[int]string{
	1: fmt.Sprintf("functions at most %d lines (a report, not a rule)", maxFuncLines),
	2: fmt.Sprintf("files at most %d lines, tests too (a report, not a rule)", maxFileLines),
	3: "the package comment in doc.go",
	4: "one-way import flow",
	5: "only compiler/internal/source opens files",
	6: "only cmd prints",
	7: "only backends/ names an engine",
	8: fmt.Sprintf("lines at most %d characters, but tables", maxLineWidth),
}

// load parses every .go file of the module at the root of fsys and of the
// modules nested in it whose path is under its own (the tools' modules,
// kept apart so that go install ./... builds only the command), skipping
// what the go command skips (folders starting with . or _, testdata,
// other modules) and node_modules.
func load(fsys fs.FS) (*tree, error) {
	mod, err := fs.ReadFile(fsys, "go.mod")
	if err != nil {
		return nil, err
	}
	tr := &tree{fset: token.NewFileSet()}
	for _, line := range strings.Split(string(mod), "\n") {
		if m, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			tr.module = strings.Trim(strings.TrimSpace(m), `"`)
		}
	}
	err = fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && name != "." && skipDir(fsys, name, d.Name(), tr.module):
			return fs.SkipDir
		case d.IsDir() || !strings.HasSuffix(name, ".go"):
			return nil
		}
		src, err := fs.ReadFile(fsys, name)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(tr.fset, name, src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		lines := bytes.Count(src, []byte("\n"))
		if len(src) > 0 && src[len(src)-1] != '\n' {
			lines++
		}
		tr.files = append(tr.files, &goFile{name: name, pkg: path.Dir(name),
			test: strings.HasSuffix(name, "_test.go"), lines: lines, long: longLines(src), f: f})
		return nil
	})
	return tr, err
}

func skipDir(fsys fs.FS, name, base, module string) bool {
	if strings.HasPrefix(base, ".") || strings.HasPrefix(base, "_") || base == "testdata" || base == "node_modules" {
		return true
	}
	mod, err := fs.ReadFile(fsys, path.Join(name, "go.mod"))
	return err == nil && !strings.Contains("\n"+string(mod), "\nmodule "+module+"/"+name+"\n")
}

// at names a position as file:line.
func (tr *tree) at(p token.Pos) string {
	pos := tr.fset.Position(p)
	return fmt.Sprintf("%s:%d", pos.Filename, pos.Line)
}

// match reports whether a package or file name matches a pattern: itself,
// or, for "x/...", x and everything under it, or, for "...", anything.
func match(pattern, name string) bool {
	if pattern == "..." {
		return true
	}
	if dir, ok := strings.CutSuffix(pattern, "/..."); ok {
		return name == dir || strings.HasPrefix(name, dir+"/")
	}
	return name == pattern
}

func matchAny(patterns []string, name string) bool {
	return slices.ContainsFunc(patterns, func(p string) bool { return match(p, name) })
}

func checkFuncLength(tr *tree) (out []violation) {
	for _, gf := range tr.files {
		if gf.test {
			continue
		}
		for _, d := range gf.f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			from, to := tr.fset.Position(fn.Pos()).Line, tr.fset.Position(fn.Body.Rbrace).Line
			if n := to - from + 1; n > maxFuncLines {
				out = append(out, violation{tr.at(fn.Pos()), 1, funcName(fn),
					fmt.Sprintf("%s is %d lines, %d to %d; split it", funcName(fn), n, from, to)})
			}
		}
	}
	return out
}

// funcName names a function or method as F, (T).M or (*T).M.
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	typ, star := fn.Recv.List[0].Type, ""
	if s, ok := typ.(*ast.StarExpr); ok {
		typ, star = s.X, "*"
	}
	switch x := typ.(type) {
	case *ast.IndexExpr:
		typ = x.X
	case *ast.IndexListExpr:
		typ = x.X
	}
	if id, ok := typ.(*ast.Ident); ok {
		return fmt.Sprintf("(%s%s).%s", star, id.Name, fn.Name.Name)
	}
	return fn.Name.Name
}

// longLines are the numbers of src's lines over maxLineWidth characters
// (a tab is one).
func longLines(src []byte) []int {
	var out []int
	for i, line := range strings.Split(string(src), "\n") {
		if utf8.RuneCountInString(line) > maxLineWidth {
			out = append(out, i+1)
		}
	}
	return out
}

// checkLineWidth: every line of Go within maxLineWidth characters, but in
// the files that are tables (lineTables), tests too.
func checkLineWidth(tr *tree) (out []violation) {
	for _, gf := range tr.files {
		if matchAny(lineTables, gf.name) {
			continue
		}
		for _, n := range gf.long {
			out = append(out, violation{fmt.Sprintf("%s:%d", gf.name, n), 8, "",
				fmt.Sprintf("the line is over %d characters: break it after a comma or an operator, or split the "+
					"string with +", maxLineWidth)})
		}
	}
	return out
}

func checkFileLength(tr *tree) (out []violation) {
	for _, gf := range tr.files {
		if gf.lines > maxFileLines {
			out = append(out, violation{fmt.Sprintf("%s:%d", gf.name, maxFileLines+1), 2, "",
				fmt.Sprintf("the file has %d lines; split it by concern", gf.lines)})
		}
	}
	return out
}

func checkDocGo(tr *tree) (out []violation) {
	var first []*goFile // the first file of each folder
	hasDoc := map[string]bool{}
	for _, gf := range tr.files {
		if !slices.ContainsFunc(first, func(f *goFile) bool { return f.pkg == gf.pkg }) {
			first = append(first, gf)
		}
		doc := gf.f.Doc != nil && strings.TrimSpace(gf.f.Doc.Text()) != ""
		switch {
		case path.Base(gf.name) == "doc.go":
			hasDoc[gf.pkg] = true
			if !doc {
				out = append(out, violation{tr.at(gf.f.Package), 3, "", "doc.go has no package comment above its package clause"})
				continue
			}
			out = append(out, docSubstance(tr, gf)...)
		case doc && !gf.test:
			out = append(out, violation{tr.at(gf.f.Doc.Pos()), 3, "",
				"a package comment outside doc.go; move it into " + gf.pkg + "/doc.go"})
		}
	}
	for _, gf := range first {
		if !hasDoc[gf.pkg] {
			out = append(out, violation{tr.at(gf.f.Package), 3, "",
				"package folder " + gf.pkg + " has .go files but no doc.go holding its package comment"})
		}
	}
	return out
}

// maxDocLines is the most lines a package comment may take: about ten
// on the package's responsibility and invariants, and a command's usage.
const maxDocLines = 13

// docSubstance holds a doc.go's package comment to what it is for: at
// most maxDocLines lines, and no list of the package's files, which
// drifts from the tree it copies.
func docSubstance(tr *tree, gf *goFile) (out []violation) {
	text := gf.f.Doc.Text()
	if n := strings.Count(strings.TrimRight(text, "\n"), "\n") + 1; n > maxDocLines {
		out = append(out, violation{tr.at(gf.f.Doc.Pos()), 3, "", fmt.Sprintf("the package comment takes %d lines, more "+
			"than %d: say the package's responsibility and invariants, and put the rest beside the code it describes",
			n, maxDocLines)})
	}
	for _, other := range tr.files {
		base := path.Base(other.name)
		if other.pkg == gf.pkg && base != "doc.go" && strings.Contains(text, base) {
			out = append(out, violation{tr.at(gf.f.Doc.Pos()), 3, base,
				"the package comment names the package's file " + base + "; say what the package does, not where"})
		}
	}
	return out
}

// ours returns an import path's package name from the module root, and
// whether it is ours.
func (tr *tree) ours(importPath string) (string, bool) {
	if importPath == tr.module {
		return ".", true
	}
	return strings.CutPrefix(importPath, tr.module+"/")
}

func checkImports(tr *tree) (out []violation) {
	missing := map[string]bool{}
	for _, gf := range tr.files {
		if _, ok := flow[gf.pkg]; ok || gf.test || missing[gf.pkg] {
			continue
		}
		missing[gf.pkg] = true
		out = append(out, violation{tr.at(gf.f.Package), 4, "package " + gf.pkg, "package " + gf.pkg +
			" is not in the import table (flow, internal/house/rules_test.go); add it with the packages of ours it may import," +
			" where docs/ARCHITECTURE.md's Rules between packages place it"})
	}
	for _, gf := range tr.files {
		for _, spec := range gf.f.Imports {
			p, _ := strconv.Unquote(spec.Path.Value)
			if gf.test {
				continue
			}
			if matchAny(noCUE, gf.pkg) && (p == "cuelang.org/go" || strings.HasPrefix(p, "cuelang.org/go/")) {
				out = append(out, violation{tr.at(spec.Pos()), 4, "import " + p,
					gf.pkg + " imports " + p + "; it may not import CUE (noCUE)"})
			}
			to, ok := tr.ours(p)
			allowed, known := flow[gf.pkg]
			if ok && known && !slices.Contains(allowed, to) {
				out = append(out, violation{tr.at(spec.Pos()), 4, "import " + to, fmt.Sprintf(
					"%s imports %s; of ours it may import only [%s] (docs/ARCHITECTURE.md, Rules between packages)",
					gf.pkg, to, strings.Join(allowed, " "))})
			}
		}
	}
	return out
}

// checkTable checks rule 4's table against never and testOnly, and that
// each of its packages still exists.
func checkTable(tr *tree) (out []violation) {
	const at = "internal/house/rules_test.go:1"
	exists := map[string]bool{}
	for _, gf := range tr.files {
		exists[gf.pkg] = exists[gf.pkg] || !gf.test
	}
	for pkg, allowed := range flow {
		if !exists[pkg] {
			out = append(out, violation{at, 4, "", "the table lists " + pkg + ", which has no non-test .go files; remove it"})
		}
		for _, to := range allowed {
			if slices.Contains(testOnly, to) && !slices.Contains(testOnly, pkg) {
				out = append(out, violation{at, 4, "", "the table lets " + pkg + " import " + to + ", which serves tests only"})
			}
			for _, n := range never {
				if matchAny(n.from, pkg) && matchAny(n.to, to) && !slices.Contains(n.except, to) {
					out = append(out, violation{at, 4, "", "the table lets " + pkg + " import " + to + ", but " + n.why})
				}
			}
		}
	}
	slices.SortFunc(out, func(a, b violation) int { return strings.Compare(a.msg, b.msg) })
	return out
}

// uses calls fn with each use of a package-level name of the watched
// packages (a nil list: every name) in non-test files, as
// "filepath.WalkDir", and with each dot import of one, which would hide
// its uses.
func (tr *tree) uses(watched map[string][]string, fn func(gf *goFile, at token.Pos, name string)) {
	for _, gf := range tr.files {
		if gf.test {
			continue
		}
		local := map[string]string{} // local name → import path
		for _, spec := range gf.f.Imports {
			p, _ := strconv.Unquote(spec.Path.Value)
			if _, ok := watched[p]; !ok {
				continue
			}
			name := path.Base(p)
			if spec.Name != nil {
				name = spec.Name.Name
			}
			if name == "." {
				fn(gf, spec.Pos(), "import . "+strconv.Quote(p))
			}
			local[name] = p
		}
		ast.Inspect(gf.f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); ok && local[x.Name] != "" {
				if names := watched[local[x.Name]]; names == nil || slices.Contains(names, sel.Sel.Name) {
					fn(gf, sel.Pos(), x.Name+"."+sel.Sel.Name)
				}
			}
			return true
		})
	}
}

func checkOpens(tr *tree) (out []violation) {
	tr.uses(opens, func(gf *goFile, at token.Pos, name string) {
		for _, e := range mayOpen {
			if (match(e.where, gf.name) || match(e.where, gf.pkg)) && (e.uses == nil || slices.Contains(e.uses, name)) {
				return
			}
		}
		out = append(out, violation{tr.at(at), 5, name, name + " in " + gf.pkg +
			"; read through compiler/internal/source's Files (an fs.FS), or add an exception with its reason to mayOpen in " +
			"internal/house/rules_test.go"})
	})
	return out
}

func checkPrints(tr *tree) (out []violation) {
	report := func(gf *goFile, at token.Pos, name string) {
		if !matchAny(mayPrint, gf.pkg) {
			out = append(out, violation{tr.at(at), 6, name, name +
				" outside cmd/ and bench/; return text or diag.Diagnostics and let cmd print them"})
		}
	}
	tr.uses(prints, report)
	declared := map[string]bool{} // package-level functions, as pkg.name
	for _, gf := range tr.files {
		for _, d := range gf.f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil {
				declared[gf.pkg+"."+fn.Name.Name] = true
			}
		}
	}
	for _, gf := range tr.files {
		if gf.test {
			continue
		}
		ast.Inspect(gf.f, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				if id, ok := call.Fun.(*ast.Ident); ok && (id.Name == "print" || id.Name == "println") &&
					!declared[gf.pkg+"."+id.Name] {
					report(gf, id.Pos(), id.Name)
				}
			}
			return true
		})
	}
	return out
}
