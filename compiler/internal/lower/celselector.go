package lower

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/google/cel-go/cel"
	celast "github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/ext"
	resourcev1 "k8s.io/api/resource/v1"

	"github.com/mlcube-compile/mlcube-compile/diag"
)

// The API server compiles a device selector in an environment where
// device is the one variable, with the fields deviceFields, and the
// expression must be a bool (k8s.io/dynamic-resource-allocation/cel,
// compile.go, v0.36.3). That environment is Kubernetes' base CEL
// environment (k8s.io/apiserver/pkg/cel/environment/base.go): optional
// syntax, two-variable comprehensions and ext.Lists' macros, besides
// Kubernetes' own libraries. The selector is parsed here with the same
// syntax and macros; it is not type-checked, since Kubernetes'
// libraries (quantity, semver, …) are not ours to declare, so what only
// the type checker finds is left to the API server.
var (
	deviceFields = []string{"driver", "attributes", "capacity", "allowMultipleAllocations"}
	// typeNames are the identifiers CEL's standard environment declares.
	typeNames = []string{"bool", "bytes", "double", "dyn", "int", "list", "map", "null_type", "optional_type",
		"string", "type", "uint"}
	// namespaces qualify functions of the libraries Kubernetes adds:
	// optional.of, sets.contains, lists.range, strings.quote.
	namespaces = []string{"lists", "optional", "sets", "strings"}
	celParser  = sync.OnceValues(func() (*cel.Env, error) {
		return cel.NewEnv(cel.OptionalTypes(), ext.TwoVarComprehensions(), ext.Lists(ext.ListsVersion(3)))
	})
)

// selectorProblem says what keeps the CEL device selector expr from
// compiling on the API server, or "" when the parser finds nothing: a
// syntax error, a name that is not device or a variable of the
// expression, a field device does not have, or a value that is no bool.
// detail says more of it, as full sentences, or "".
func selectorProblem(expr string) (problem, detail string) {
	if len(expr) > resourcev1.CELSelectorExpressionMaxLength {
		return fmt.Sprintf("the selector is %d bytes long, and the API server takes at most %d", len(expr),
			resourcev1.CELSelectorExpressionMaxLength), ""
	}
	env, err := celParser()
	if err != nil {
		return fmt.Sprintf("the CEL parser cannot start: %v", err), ""
	}
	parsed, iss := env.Parse(expr)
	if iss.Err() != nil {
		e := iss.Errors()[0]
		return fmt.Sprintf("%s: not a CEL expression: %s", place(expr, e.Location.Line(), e.Location.Column()),
			e.Message), ""
	}
	native := parsed.NativeRep()
	w := selectorWalk{expr: expr, info: native.SourceInfo()}
	w.walk(native.Expr(), map[string]bool{})
	if w.problem != "" {
		return w.problem, w.detail
	}
	return notBool(native.Expr()), ""
}

// notBool says why the selector's value cannot be a bool, when it is
// written as a literal of another type.
func notBool(e celast.Expr) string {
	switch e.Kind() {
	case celast.LiteralKind:
		if t := e.AsLiteral().Type(); t != types.BoolType {
			return fmt.Sprintf("the selector is a %s, and it must be a bool: a condition on device, such as device.driver == "+
				"\"gpu.example.com\"", t.TypeName())
		}
	case celast.ListKind, celast.MapKind, celast.StructKind:
		return "the selector is a list or a map, and it must be a bool: a condition on device, such as device.driver == " +
			"\"gpu.example.com\""
	}
	return ""
}

// selectorWalk finds the first name in an expression that the API
// server's environment does not have.
type selectorWalk struct {
	expr    string
	info    *celast.SourceInfo
	problem string
	// detail says more of the problem, as full sentences; "" if nothing.
	detail string
}

// walk checks e, where the names in bound are the expression's own
// variables (a comprehension's).
func (w *selectorWalk) walk(e celast.Expr, bound map[string]bool) {
	if w.problem != "" {
		return
	}
	switch e.Kind() {
	case celast.IdentKind:
		if name := e.AsIdent(); !bound[name] && name != "device" && !slices.Contains(typeNames, name) {
			w.fail(e, "%q is no name the selector knows: its one variable is device", name)
		}
	case celast.SelectKind:
		w.walkSelect(e, bound)
	case celast.CallKind:
		w.walkCall(e, bound)
	case celast.ComprehensionKind:
		w.walkComprehension(e.AsComprehension(), bound)
	case celast.ListKind:
		for _, el := range e.AsList().Elements() {
			w.walk(el, bound)
		}
	case celast.MapKind:
		for _, en := range e.AsMap().Entries() {
			w.walk(en.AsMapEntry().Key(), bound)
			w.walk(en.AsMapEntry().Value(), bound)
		}
	case celast.StructKind:
		for _, f := range e.AsStruct().Fields() {
			w.walk(f.AsStructField().Value(), bound)
		}
	}
}

// walkSelect checks a field of device, and what the field is read from.
func (w *selectorWalk) walkSelect(e celast.Expr, bound map[string]bool) {
	sel := e.AsSelect()
	op := sel.Operand()
	if op.Kind() == celast.IdentKind && op.AsIdent() == "device" && !bound["device"] &&
		!slices.Contains(deviceFields, sel.FieldName()) {
		w.fail(e, "device has no field %q%s", sel.FieldName(), diag.Suggest(sel.FieldName(), deviceFields))
		w.detail = fmt.Sprintf("A device has the fields %s.", strings.Join(deviceFields, ", "))
		return
	}
	w.walk(op, bound)
}

// walkCall checks a call's receiver and arguments; a namespace of
// Kubernetes' libraries may qualify the function.
func (w *selectorWalk) walkCall(e celast.Expr, bound map[string]bool) {
	call := e.AsCall()
	if call.IsMemberFunction() {
		t := call.Target()
		if t.Kind() != celast.IdentKind || bound[t.AsIdent()] || !slices.Contains(namespaces, t.AsIdent()) {
			w.walk(t, bound)
		}
	}
	for _, a := range call.Args() {
		w.walk(a, bound)
	}
}

// walkComprehension checks a macro's range in the enclosing scope and
// its body with its own variables bound.
func (w *selectorWalk) walkComprehension(c celast.ComprehensionExpr, bound map[string]bool) {
	w.walk(c.IterRange(), bound)
	w.walk(c.AccuInit(), bound)
	inner := map[string]bool{c.IterVar(): true, c.AccuVar(): true}
	if c.HasIterVar2() {
		inner[c.IterVar2()] = true
	}
	for name := range bound {
		inner[name] = true
	}
	w.walk(c.LoopCondition(), inner)
	w.walk(c.LoopStep(), inner)
	w.walk(c.Result(), inner)
}

// fail records the first problem, at e's place in the expression.
func (w *selectorWalk) fail(e celast.Expr, format string, args ...any) {
	loc := w.info.GetStartLocation(e.ID())
	w.problem = place(w.expr, loc.Line(), loc.Column()) + ": " + fmt.Sprintf(format, args...)
}

// place names a place in the selector expr by its column (from 0), and
// its line when expr has several.
func place(expr string, line, col int) string {
	if strings.Contains(expr, "\n") {
		return fmt.Sprintf("line %d, column %d", line, col+1)
	}
	return fmt.Sprintf("column %d", col+1)
}
