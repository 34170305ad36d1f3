package diag

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The table is the one list of codes: each constant of type Code has one
// row, each row's code is a constant, and no code or alias is written
// twice.
func TestCodeTableIsTheOneList(t *testing.T) {
	constants := codeConstants(t)
	seen := map[Code]string{}
	for _, d := range codeTable {
		switch {
		case seen[d.Code] != "":
			t.Errorf("%s: a second row (the first: %s)", d.Code, seen[d.Code])
		case !slices.Contains(constants, d.Code):
			t.Errorf("%s: a row and no constant", d.Code)
		case d.Title == "" || d.Fix == "" || strings.HasPrefix(d.Title, "(a note)"):
			t.Errorf("%s: want a title, without \"(a note)\" (the severity says it), and a fix", d.Code)
		case d.Severity != Error && d.Severity != Warning && d.Severity != Note:
			t.Errorf("%s: severity %d", d.Code, d.Severity)
		}
		seen[d.Code] = "row " + d.Title
		for _, a := range d.Aliases {
			if seen[a] != "" || slices.Contains(constants, a) {
				t.Errorf("alias %s of %s: written twice, or a code of its own", a, d.Code)
			}
			if !strings.Contains(d.Fix, string(a)) {
				t.Errorf("%s: its fix does not name its alias %s", d.Code, a)
			}
			seen[a] = "alias of " + string(d.Code)
		}
	}
	for _, c := range constants {
		if seen[c] == "" {
			t.Errorf("%s: a constant and no row in codeTable", c)
		}
	}
	if len(constants) != len(codeTable) {
		t.Errorf("%d constants, %d rows", len(constants), len(codeTable))
	}
}

// codeConstants are the values of the package's constants of type Code.
func codeConstants(t *testing.T) []Code {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var out []Code
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				if typ, ok := vs.Type.(*ast.Ident); !ok || typ.Name != "Code" {
					continue
				}
				for _, v := range vs.Values {
					s, err := strconv.Unquote(v.(*ast.BasicLit).Value)
					if err != nil {
						t.Fatal(err)
					}
					out = append(out, Code(s))
				}
			}
		}
	}
	return out
}

// What the command asks of a code, read from the table: an error's code
// is never silenced; a warning's, a note's and an old alias's are.
func TestCodeLookups(t *testing.T) {
	for _, c := range []struct {
		code                 Code
		known, isError       bool
		problem              Code
		aliases              []Code
		inNames, inErrorRows bool
	}{
		{KeyIgnored, true, false, KeyIgnored, nil, true, false},
		{PlatformRead, true, false, PlatformRead, nil, true, false},
		{YAMLSyntax, false, true, YAMLSyntax, nil, false, true},
		{ClaimPerRunDeleted, true, false, ClaimPerRunDeleted, []Code{"MLC606", "MLC627", "MLC642"}, true, false},
		{"MLC627", true, false, ClaimPerRunDeleted, nil, false, false},
		{"MLC641", true, false, BackoffNotApplied, nil, false, false},
		{"MLC999", false, false, "MLC999", nil, false, false},
	} {
		inNames := slices.Contains(CodeNames(), string(c.code))
		inErrors := slices.ContainsFunc(ErrorCodes(), func(d CodeDoc) bool { return d.Code == c.code })
		if Known(c.code) != c.known || IsError(c.code) != c.isError || c.code.Problem() != c.problem ||
			!slices.Equal(AliasesOf(c.code), c.aliases) || inNames != c.inNames || inErrors != c.inErrorRows {
			t.Errorf("%s: known %v, error %v, problem %s, aliases %v, in CodeNames %v, in ErrorCodes %v", c.code,
				Known(c.code), IsError(c.code), c.code.Problem(), AliasesOf(c.code), inNames, inErrors)
		}
	}
	if n := len(Codes()) + len(ErrorCodes()); n != len(codeTable) {
		t.Errorf("Codes and ErrorCodes: %d rows, want %d", n, len(codeTable))
	}
}
