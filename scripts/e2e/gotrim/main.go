package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: gotrim DIR IMPORT-PATH...")
		os.Exit(2)
	}
	n, err := trimTree(os.Args[1], os.Args[2:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "gotrim:", err)
		os.Exit(1)
	}
	if n == 0 {
		fmt.Fprintf(os.Stderr, "gotrim: no file under %s imports %s: update the trim\n", os.Args[1],
			strings.Join(os.Args[2:], " "))
		os.Exit(1)
	}
}

// trimTree trims every non-test Go file under dir, and says how many it
// changed.
func trimTree(dir string, drop []string) (int, error) {
	changed := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		out, err := trimFile(path, src, drop)
		if err != nil || out == nil {
			return err
		}
		changed++
		return os.WriteFile(path, out, 0o644)
	})
	return changed, err
}

// trimFile returns src without the dropped imports and the if statements
// that use them, or nil if src imports none of them.
func trimFile(name string, src []byte, drop []string) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	names := dropImports(f, drop)
	if len(names) == 0 {
		return nil, nil
	}
	comments := ast.NewCommentMap(fset, f, f.Comments)
	ast.Inspect(f, func(n ast.Node) bool {
		switch b := n.(type) {
		case *ast.BlockStmt:
			b.List = keepStatements(b.List, names)
		case *ast.CaseClause:
			b.Body = keepStatements(b.Body, names)
		}
		return true
	})
	if pos, pkg := firstUse(f, names); pkg != "" {
		return nil, fmt.Errorf("%s: still uses %s outside an if statement: update the trim", fset.Position(pos), pkg)
	}
	f.Comments = comments.Filter(f).Comments()
	var out bytes.Buffer
	if err := format.Node(&out, fset, f); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// dropImports removes the dropped import specs from f and returns the
// names they were used by.
func dropImports(f *ast.File, drop []string) map[string]bool {
	names := map[string]bool{}
	for _, decl := range f.Decls {
		g, ok := decl.(*ast.GenDecl)
		if !ok || g.Tok != token.IMPORT {
			continue
		}
		kept := g.Specs[:0]
		for _, s := range g.Specs {
			spec := s.(*ast.ImportSpec)
			path, _ := strconv.Unquote(spec.Path.Value)
			if !slices.Contains(drop, path) {
				kept = append(kept, s)
				continue
			}
			name := filepath.Base(path)
			if spec.Name != nil {
				name = spec.Name.Name
			}
			names[name] = true
		}
		g.Specs = kept
	}
	return names
}

// keepStatements drops each if statement of list that uses a dropped
// package.
func keepStatements(list []ast.Stmt, names map[string]bool) []ast.Stmt {
	kept := list[:0]
	for _, s := range list {
		if _, isIf := s.(*ast.IfStmt); isIf {
			if _, pkg := firstUse(s, names); pkg != "" {
				continue
			}
		}
		kept = append(kept, s)
	}
	return kept
}

// firstUse finds the first selector PKG.X under n whose PKG is a dropped
// package's name.
func firstUse(n ast.Node, names map[string]bool) (token.Pos, string) {
	var pos token.Pos
	var pkg string
	ast.Inspect(n, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok || pkg != "" {
			return pkg == ""
		}
		// A package has no object; a local variable of the same name has.
		if id, ok := sel.X.(*ast.Ident); ok && id.Obj == nil && names[id.Name] {
			pos, pkg = id.Pos(), id.Name
		}
		return pkg == ""
	})
	return pos, pkg
}
