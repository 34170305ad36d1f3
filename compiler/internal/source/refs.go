package source

import (
	"maps"
	"regexp"
	"slices"
	"strings"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/literal"
	"cuelang.org/go/cue/token"

	"github.com/mlcube-compile/mlcube-compile/diag"
)

// refPattern matches an OmegaConf-style reference such as ${docker.image}.
var refPattern = regexp.MustCompile(`\$\{([^{}]*)\}`)

// maxRefDepth bounds chains of references that refer to references.
const maxRefDepth = 32

// refResolver replaces ${a.b} references in the string values of a YAML
// document with the scalar they name, the way MLCube's OmegaConf does.
type refResolver struct {
	fields map[string]refField // dotted path -> field
	done   map[string]bool     // paths already resolved
	diags  diag.Diagnostics
}

// refField is a field a reference may name, and where it is.
type refField struct {
	*ast.Field
	loc diag.Loc
}

// ResolveRefs rewrites f in place. A string that is exactly one reference
// to a number or boolean takes that value's type.
func ResolveRefs(f *ast.File) diag.Diagnostics {
	r := &refResolver{fields: map[string]refField{}, done: map[string]bool{}}
	r.index(diag.Loc{}, f.Decls)
	for _, path := range slices.Sorted(maps.Keys(r.fields)) {
		r.resolve(path, nil)
	}
	return r.diags
}

// index records every field below loc by its dotted path, which is how
// a reference names it.
func (r *refResolver) index(loc diag.Loc, decls []ast.Decl) {
	NamedFields(decls, func(name string, field *ast.Field) {
		at := loc.Field(name)
		r.fields[at.Path()] = refField{field, at}
		if s, ok := field.Value.(*ast.StructLit); ok {
			r.index(at, s.Elts)
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
	at := r.fields[path].loc.At(PosOf(lit.Pos()))
	s = rootWorkspace.ReplaceAllString(s, "$${workspace}$1")
	if m := refPattern.FindStringSubmatchIndex(s); m != nil && m[0] == 0 && m[1] == len(s) && !escaped(s, 0) {
		target := r.target(at, strings.TrimSpace(s[m[2]:m[3]]), stack)
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
		target := r.target(at, strings.TrimSpace(s[m[2]:m[3]]), stack)
		if target == nil {
			b.WriteString(s[m[0]:m[1]])
			continue
		}
		b.WriteString(scalarText(target))
	}
	b.WriteString(s[last:])
	return &ast.BasicLit{ValuePos: lit.Pos(), Kind: token.STRING, Value: literal.String.Quote(b.String())}
}

// rootWorkspace is ${runtime.root}/workspace, MLCube's default workspace.
var rootWorkspace = regexp.MustCompile(`\$\{\s*runtime\.root\s*\}/workspace(/|$)`)

// paramPath matches the dotted path of a task parameter's path.
var paramPath = regexp.MustCompile(`^tasks\.[^.]+\.parameters\.(inputs|outputs)\.`)

// mlcubeKey resolves the keys MLCube itself sets in every cube's config,
// whatever the file says (create_mlcube_config in mlcube/config.py of
// mlcommons/mlcube: runtime.root, runtime.workspace and workspace, set
// after the file is read). A parameter's path is joined to the workspace
// (Path(workspace) / path, which an absolute path replaces), so
// ${workspace}/data and ${runtime.workspace}/data are the workspace's
// data: both resolve to ".", the workspace here, and so does the default
// workspace, ${runtime.root}/workspace (substitute rewrites it). Any
// other path under ${runtime.root}, the cube's folder on the machine
// running MLCube, is refused in a parameter: the cluster has the
// workspace claim, not the cube's folder. Elsewhere (docker's
// build_context, which is not read) it is ".".
func (r *refResolver) mlcubeKey(at diag.Loc, ref string) (ast.Expr, bool) {
	switch ref {
	case "workspace", "runtime.workspace":
	case "runtime.root":
		if paramPath.MatchString(at.Path()) {
			r.errorf(diag.BadReference, at, "${runtime.root} is the cube's folder on the machine that runs MLCube, which a "+
				"cluster does not have; put the data in the workspace and write its path relative to it "+
				"(${runtime.root}/workspace is the workspace)")
			return nil, true
		}
	default:
		return nil, false
	}
	return &ast.BasicLit{Kind: token.STRING, Value: literal.String.Quote(".")}, true
}

// escaped reports whether the reference at i is written \${...}.
func escaped(s string, i int) bool { return i > 0 && s[i-1] == '\\' }

// target returns the scalar a reference names, or nil after reporting why
// there is none.
func (r *refResolver) target(at diag.Loc, ref string, stack []string) ast.Expr {
	if strings.Contains(ref, ":") {
		r.errorf(diag.BadReference, at, "${%s}: resolvers such as oc.env are not supported; the compiler "+
			"reads no environment", ref)
		return nil
	}
	if builtin, ok := r.mlcubeKey(at, ref); ok {
		return builtin
	}
	for i, p := range stack {
		if p == ref {
			cycle := append(append([]string{}, stack[i:]...), ref)
			r.errorf(diag.BadReference, at, "${%s}: reference cycle: %s", ref, strings.Join(cycle, " -> "))
			return nil
		}
	}
	if len(stack) > maxRefDepth {
		r.errorf(diag.BadReference, at, "${%s}: references nest deeper than %d", ref, maxRefDepth)
		return nil
	}
	if _, ok := r.fields[ref]; !ok {
		r.errorf(diag.BadReference, at, "${%s}: no such key in this file%s", ref, r.suggest(ref))
		return nil
	}
	target := r.resolve(ref, stack)
	switch t := target.(type) {
	case *ast.BasicLit:
		return t
	case *ast.Ident: // null
		r.errorf(diag.BadReference, at, "${%s}: refers to a null value", ref)
	default:
		r.errorf(diag.BadReference, at, "${%s}: refers to a mapping or list; only scalars can be interpolated", ref)
	}
	return nil
}

// suggest names the key a reference to no key may have meant: the
// nearest of the keys beside the one it names.
func (r *refResolver) suggest(ref string) string {
	parent, last := "", ref
	if i := strings.LastIndexByte(ref, '.'); i >= 0 {
		parent, last = ref[:i+1], ref[i+1:]
	}
	var siblings []string
	for path := range r.fields {
		if rest, ok := strings.CutPrefix(path, parent); ok && !strings.Contains(rest, ".") {
			siblings = append(siblings, rest)
		}
	}
	if near := diag.Nearest(last, siblings); near != "" {
		return diag.Suggest(ref, []string{parent + near})
	}
	return ""
}

func (r *refResolver) errorf(code diag.Code, at diag.Loc, format string, args ...any) {
	r.diags = append(r.diags, diag.Errorf(code, at, format, args...))
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
