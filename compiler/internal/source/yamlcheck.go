package source

import (
	"fmt"
	"strings"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/literal"
	"cuelang.org/go/cue/token"

	"github.com/mlcube-compile/mlcube-compile/diag"
)

// maxDepth bounds how deeply a spec nests mappings and lists. Real specs
// stay under ten levels; the bound keeps a hostile document from costing
// the evaluator time and memory.
const maxDepth = 64

// CheckTree walks a parsed spec before any schema sees it. It reports keys
// written twice in one mapping (YAML forbids them and CUE would merge
// them), nesting deeper than maxDepth, and strings that an engine would
// expand or that are unrendered templates.
func CheckTree(f *ast.File) diag.Diagnostics {
	c := &treeCheck{}
	c.mapping(f.Decls, diag.Loc{}, 1)
	return c.diags
}

// treeCheck walks the syntax tree, where each node has its position.
type treeCheck struct {
	diags   diag.Diagnostics
	tooDeep bool
}

func (c *treeCheck) mapping(decls []ast.Decl, loc diag.Loc, depth int) {
	seen := map[string]token.Pos{}
	NamedFields(decls, func(name string, field *ast.Field) {
		at := loc.Field(name)
		key := at.At(PosOf(field.Pos()))
		if first, dup := seen[name]; dup {
			c.diags = append(c.diags,
				diag.Errorf(diag.DuplicateKey, key, "duplicate key").WithRelated(PosOf(first), "first written here"))
		}
		seen[name] = field.Pos()
		c.text(name, key)
		c.value(field.Value, at, depth+1)
	})
}

func (c *treeCheck) value(e ast.Expr, loc diag.Loc, depth int) {
	if depth > maxDepth {
		if !c.tooDeep {
			c.diags = append(c.diags, diag.Diagnostic{Pos: PosOf(e.Pos()), Field: shortPath(loc.Path()), Code: diag.YAMLShape,
				Message: fmt.Sprintf("nested more than %d levels deep; no spec needs that many", maxDepth)})
			c.tooDeep = true
		}
		return
	}
	switch v := e.(type) {
	case *ast.StructLit:
		c.mapping(v.Elts, loc, depth)
	case *ast.ListLit:
		for i, el := range v.Elts {
			c.value(el, loc.Index(i), depth+1)
		}
	case *ast.BasicLit:
		if v.Kind != token.STRING {
			return
		}
		if s, err := literal.Unquote(v.Value); err == nil {
			c.text(s, loc.At(PosOf(v.Pos())))
		}
	}
}

// text refuses a key or value that holds template syntax.
func (c *treeCheck) text(s string, at diag.Loc) {
	if msg, fix := TemplateSyntax(s); msg != "" {
		c.diags = append(c.diags, diag.Errorf(diag.YAMLShape, at, "%s", msg).WithFix(fix))
	}
}

// TemplateSyntax explains why s cannot be used as a spec value, and what
// to do, or returns "". Engines expand {{…}} (Argo) and $(…) (Tekton, and Kubernetes in
// container args and env), so user text holding them would run as
// something other than what the spec says. Neither engine has an escape
// that works everywhere a value lands, so such text is refused.
func TemplateSyntax(s string) (msg, fix string) {
	const remove = "remove it (pipeline parameters are written ${params.NAME})"
	switch {
	case strings.Contains(s, "{{cookiecutter."):
		return fmt.Sprintf("%s is an unrendered cookiecutter template", quoteShort(s)),
			"run cookiecutter on the template and compile the cube it makes"
	case strings.Contains(s, "{%") || strings.Contains(s, "{#"):
		return fmt.Sprintf("%s holds Jinja template syntax", quoteShort(s)), "render the template first"
	case strings.Contains(s, "{{"):
		return fmt.Sprintf("%s holds \"{{\", which Argo would expand as a template at run time", quoteShort(s)), remove
	case strings.Contains(s, "$("):
		return fmt.Sprintf("%s holds \"$(\", which Tekton and Kubernetes would expand at run time", quoteShort(s)), remove
	}
	return "", ""
}

// quoteShort quotes s for a message, cut to a readable length.
func quoteShort(s string) string {
	const max = 60
	if r := []rune(s); len(r) > max {
		return fmt.Sprintf("%q…", string(r[:max]))
	}
	return fmt.Sprintf("%q", s)
}

// shortPath cuts a long field path for a message.
func shortPath(path string) string {
	const max = 40
	if len(path) > max {
		return path[:max] + "…"
	}
	return path
}
