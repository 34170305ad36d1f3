package house

import (
	"go/ast"
	"go/token"
	"strconv"
	"strings"
)

// namesNoEngine are rule 7's packages: they know an engine only through
// backends/emit's contract and backends/engines' registry, so their
// non-test files never write an engine's name.
var namesNoEngine = []string{"driver/...", "lint/..."}

// engineNames are the names the engines under backends/ give themselves:
// the string literal each Engine's Name method returns.
func engineNames(tr *tree) map[string]bool {
	names := map[string]bool{}
	for _, gf := range tr.files {
		if gf.test || !match("backends/...", gf.pkg) {
			continue
		}
		for _, d := range gf.f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || funcName(fn) != "(Engine).Name" || fn.Body == nil || len(fn.Body.List) != 1 {
				continue
			}
			if ret, ok := fn.Body.List[0].(*ast.ReturnStmt); ok && len(ret.Results) == 1 {
				if lit, ok := ret.Results[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
					if name, err := strconv.Unquote(lit.Value); err == nil {
						names[name] = true
					}
				}
			}
		}
	}
	return names
}

// checkEngineNames is rule 7: no string literal of namesNoEngine's
// packages is an engine's name, or starts with one and a colon (as a
// message prefix would).
func checkEngineNames(tr *tree) (out []violation) {
	names := engineNames(tr)
	for _, gf := range tr.files {
		if gf.test || !matchAny(namesNoEngine, gf.pkg) {
			continue
		}
		ast.Inspect(gf.f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				return true
			}
			word, _, _ := strings.Cut(s, ":")
			if names[s] || names[word] {
				out = append(out, violation{tr.at(lit.Pos()), 7, s, gf.pkg + " names the engine " + strconv.Quote(word) +
					"; ask the engine what it needs through backends/emit's Engine (Kinds), and find it in backends/engines"})
			}
			return true
		})
	}
	return out
}
