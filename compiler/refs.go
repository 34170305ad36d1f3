package compiler

import (
	"regexp"
	"strconv"
	"strings"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/literal"
	"cuelang.org/go/cue/token"
)

// refPattern matches an OmegaConf-style reference such as ${docker.image}.
var refPattern = regexp.MustCompile(`\$\{([^{}]*)\}`)

// maxRefDepth bounds chains of references that refer to references.
const maxRefDepth = 32

// refResolver replaces ${a.b} references in the string values of a YAML
// document with the scalar they name, the way MLCube's OmegaConf does.
type refResolver struct {
	fields map[string]*ast.Field // dotted path -> field
	done   map[string]bool       // paths already resolved
	diags  *Diagnostics
}

// resolveRefs rewrites f in place. A string that is exactly one reference
// to a number or boolean takes that value's type.
func resolveRefs(f *ast.File, diags *Diagnostics) {
	r := &refResolver{fields: map[string]*ast.Field{}, done: map[string]bool{}, diags: diags}
	r.index("", f.Decls)
	for _, path := range sortedKeys(r.fields) {
		r.resolve(path, nil)
	}
}

func (r *refResolver) index(prefix string, decls []ast.Decl) {
	namedFields(decls, func(name string, field *ast.Field) {
		path := joinPath(prefix, name)
		r.fields[path] = field
		if s, ok := field.Value.(*ast.StructLit); ok {
			r.index(path, s.Elts)
		}
	})
}

// resolve resolves the node at path, following references depth-first.
// stack holds the paths being resolved, to find cycles.
func (r *refResolver) resolve(path string, stack []string) ast.Expr {
	node := r.fields[path].Value
	if r.done[path] {
		return node
	}
	lit, ok := node.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING || !strings.Contains(lit.Value, "${") {
		r.done[path] = true
		return node
	}
	s, err := literal.Unquote(lit.Value)
	if err != nil {
		r.done[path] = true
		return node
	}
	stack = append(stack, path)
	out := r.substitute(path, s, lit, stack)
	r.fields[path].Value = out
	r.done[path] = true
	return out
}

// substitute expands every reference in s, the value at path.
func (r *refResolver) substitute(path, s string, lit *ast.BasicLit, stack []string) ast.Expr {
	pos := posOf(lit.Pos())
	field := path
	if m := refPattern.FindStringSubmatchIndex(s); m != nil && m[0] == 0 && m[1] == len(s) && !escaped(s, 0) {
		target := r.target(field, pos, strings.TrimSpace(s[m[2]:m[3]]), stack)
		if target == nil {
			return lit
		}
		if t, ok := target.(*ast.BasicLit); ok && t.Kind != token.STRING {
			return &ast.BasicLit{ValuePos: lit.Pos(), Kind: t.Kind, Value: t.Value}
		}
	}
	var b strings.Builder
	last := 0
	for _, m := range refPattern.FindAllStringSubmatchIndex(s, -1) {
		if escaped(s, m[0]) {
			b.WriteString(s[last : m[0]-1])
			b.WriteString(s[m[0]:m[1]])
			last = m[1]
			continue
		}
		b.WriteString(s[last:m[0]])
		last = m[1]
		target := r.target(field, pos, strings.TrimSpace(s[m[2]:m[3]]), stack)
		if target == nil {
			b.WriteString(s[m[0]:m[1]])
			continue
		}
		b.WriteString(scalarText(target))
	}
	b.WriteString(s[last:])
	return &ast.BasicLit{ValuePos: lit.Pos(), Kind: token.STRING, Value: literal.String.Quote(b.String())}
}

// escaped reports whether the reference at i is written \${...}.
func escaped(s string, i int) bool { return i > 0 && s[i-1] == '\\' }

// target returns the scalar a reference names, or nil after reporting why
// there is none.
func (r *refResolver) target(field string, pos Pos, ref string, stack []string) ast.Expr {
	if strings.Contains(ref, ":") {
		r.diags.errorf(pos, field, "${%s}: resolvers such as oc.env are not supported; the compiler reads no environment", ref)
		return nil
	}
	for i, p := range stack {
		if p == ref {
			cycle := append(append([]string{}, stack[i:]...), ref)
			r.diags.errorf(pos, field, "${%s}: reference cycle: %s", ref, strings.Join(cycle, " -> "))
			return nil
		}
	}
	if len(stack) > maxRefDepth {
		r.diags.errorf(pos, field, "${%s}: references nest deeper than %d", ref, maxRefDepth)
		return nil
	}
	if _, ok := r.fields[ref]; !ok {
		r.diags.errorf(pos, field, "${%s}: no such key in this file", ref)
		return nil
	}
	target := r.resolve(ref, stack)
	switch t := target.(type) {
	case *ast.BasicLit:
		return t
	case *ast.Ident: // null
		r.diags.errorf(pos, field, "${%s}: refers to a null value", ref)
	default:
		r.diags.errorf(pos, field, "${%s}: refers to a mapping or list; only scalars can be interpolated", ref)
	}
	return nil
}

func scalarText(e ast.Expr) string {
	lit := e.(*ast.BasicLit)
	if lit.Kind == token.STRING {
		if s, err := literal.Unquote(lit.Value); err == nil {
			return s
		}
	}
	return lit.Value
}

// plainKey is a key that a field path can show without quotes.
var plainKey = regexp.MustCompile(`^[A-Za-z0-9_./-]+$`)

// joinPath appends a key to a field path, quoting a key with spaces or
// other characters that would make the path hard to read.
func joinPath(prefix, name string) string {
	if !plainKey.MatchString(name) {
		name = strconv.Quote(name)
	}
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}
