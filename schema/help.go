package schema

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/token"
)

// patternHelp is the words that explain one pattern of the schema, read
// from the @help attribute of the field whose value holds the pattern.
type patternHelp struct {
	// bound is the pattern as CUE's messages print it: =~"…" or !~"…".
	bound string
	help  string
}

// bound is one pattern (=~ or !~) of a field's value.
type bound struct {
	op      cue.Op
	printed string
	pattern string
}

// helpPaths returns the path of every field of f that has a @help
// attribute. Finding them in the syntax spares walking every field of
// every definition, as used in every other, each time a schema is
// compiled.
func helpPaths(f *ast.File) ([]cue.Path, error) {
	var stack []cue.Selector
	var out []cue.Path
	var err error
	ast.Walk(f, func(n ast.Node) bool {
		field, ok := n.(*ast.Field)
		if !ok {
			return true
		}
		stack = append(stack, selectorOf(field))
		if !hasHelp(field) {
			return true
		}
		if slices.Contains(stack, cue.AnyString) {
			err = fmt.Errorf("%s: @help is read from definitions and regular fields, in structs of those alone", field.Pos())
		}
		out = append(out, cue.MakePath(slices.Clone(stack)...))
		return true
	}, func(n ast.Node) {
		if _, ok := n.(*ast.Field); ok {
			stack = stack[:len(stack)-1]
		}
	})
	return out, err
}

// selectorOf is the selector of a field's label: cue.AnyString for a
// hidden field or a pattern constraint, whose @help is not read.
func selectorOf(f *ast.Field) cue.Selector {
	name, isIdent, err := ast.LabelName(f.Label)
	var sel cue.Selector
	switch {
	case err != nil, isIdent && strings.HasPrefix(name, "_"):
		return cue.AnyString
	case isIdent && strings.HasPrefix(name, "#"):
		sel = cue.Def(name)
	default:
		sel = cue.Str(name)
	}
	switch f.Constraint {
	case token.OPTION:
		sel = sel.Optional()
	case token.NOT:
		sel = sel.Required()
	}
	return sel
}

// hasHelp reports whether a field has a @help attribute.
func hasHelp(f *ast.Field) bool {
	for _, a := range f.Attrs {
		if name, _ := a.Split(); name == "help" {
			return true
		}
	}
	return false
}

// readHelp reads the @help attribute of the field of v at each path:
// the words that explain each pattern of the field's value when a value
// is out of it.
func readHelp(v cue.Value, paths []cue.Path) ([]patternHelp, error) {
	var out []patternHelp
	for _, p := range paths {
		fv := v.LookupPath(p)
		if !fv.Exists() {
			return nil, fmt.Errorf("%v: no such field", p)
		}
		for _, a := range fv.Attributes(cue.FieldAttr) {
			if a.Name() != "help" {
				continue
			}
			helps, err := fieldHelp(fv, a)
			if err != nil {
				return nil, fmt.Errorf("%v: %w", p, err)
			}
			out = append(out, helps...)
		}
	}
	return out, nil
}

// fieldHelp pairs the strings of one @help attribute with the patterns
// of the field's value v, in order.
func fieldHelp(v cue.Value, a cue.Attribute) ([]patternHelp, error) {
	bs := bounds(v)
	if a.NumArgs() != len(bs) {
		return nil, fmt.Errorf("%v has %d strings for %d patterns", a, a.NumArgs(), len(bs))
	}
	out := make([]patternHelp, len(bs))
	for i, b := range bs {
		help, value := a.Arg(i)
		if value != "" || help == "" {
			return nil, fmt.Errorf("%v: want a string of words, one a pattern", a)
		}
		out[i] = patternHelp{bound: b.printed, help: help}
	}
	return out, nil
}

// bounds returns the patterns of v: its own, or those of the values it is
// the unification of, or the disjunction of.
func bounds(v cue.Value) []bound {
	op, args := v.Expr()
	switch op {
	case cue.AndOp, cue.OrOp:
		var out []bound
		for _, a := range args {
			out = append(out, bounds(a)...)
		}
		return out
	case cue.RegexMatchOp, cue.NotRegexMatchOp:
		if len(args) != 1 {
			return nil
		}
		pattern, err := args[0].String()
		if err != nil {
			return nil
		}
		return []bound{{op: op, printed: fmt.Sprint(v), pattern: pattern}}
	}
	return nil
}

// onePattern compiles the pattern a definition's value must match, when
// it has one and no other.
func onePattern(v cue.Value) (*regexp.Regexp, error) {
	bs := bounds(v)
	if len(bs) != 1 || bs[0].op != cue.RegexMatchOp {
		return nil, fmt.Errorf("%v: want one pattern to match, got %d patterns", v.Path(), len(bs))
	}
	return regexp.Compile(bs[0].pattern)
}

// Help returns the words that explain the pattern a message of CUE says a
// value is out of, as the pattern's @help gives them; ok is false when
// the message is of another kind, or the pattern has no @help.
func (c *Context) Help(msg string) (help string, ok bool) {
	for _, h := range c.help {
		if strings.Contains(msg, "out of bound "+h.bound) {
			return h.help, true
		}
	}
	return "", false
}
