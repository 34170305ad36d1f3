package enginetest

import (
	"bytes"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// Suite is what Conformance runs an engine's output against.
type Suite struct {
	// Golden is the folder of the engine's golden files, one an example;
	// empty for testdata/golden/<engine> at the repository's root.
	Golden string
	// Update rewrites the golden files.
	Update bool
}

// Conformance runs the tests every engine must pass, on every example's
// IR, as the command runs the engine (emit.Emit):
//   - the contract: a name, and kinds (the default first, none twice), each
//     with what it needs, the default no schedule;
//   - shape: Accepts emits nothing, changes nothing and says the same twice;
//     its refusals are coded errors at a file, and Emit refuses what it
//     refuses;
//   - goldens: the default kind's objects equal the example's golden file
//     (an example of a shape the engine does not run has none);
//   - determinism: two emits of one pipeline give the same bytes, every kind;
//   - refusals and warnings as diagnostics: each has a code documented as
//     an error or a warning, a place in a file, and a message that does not
//     name the engine (emit.Emit names it);
//   - objects: every object the engine emits has an apiVersion, a kind and a
//     name, and a run object is there unless the engine refused;
//   - RBAC: asked for, it is ServiceAccounts, Roles, RoleBindings and their
//     token Secrets, or a warning with a code says why there is none.
func Conformance(t *testing.T, e emit.Engine, s Suite) {
	t.Run("contract", func(t *testing.T) { checkContract(t, e) })
	dir := s.Golden
	if dir == "" {
		dir = Root(t) + "/testdata/golden/" + e.Name()
	}
	t.Run("golden", func(t *testing.T) { compareAll(t, e, emit.Options{}, dir, s.Update) })
	for name, p := range Pipelines(t) {
		t.Run(name, func(t *testing.T) {
			for _, kind := range e.Kinds() {
				if kind.Schedule && p.Schedule == nil {
					continue
				}
				checkAccepts(t, e, p, kind.Name)
				checkEmit(t, e, p, emit.Options{Kind: kind.Name})
			}
			checkRBAC(t, e, p)
		})
	}
}

// checkContract: a name, and kinds, each a --kind value, none twice, the
// default one that needs no schedule.
func checkContract(t *testing.T, e emit.Engine) {
	if !flagValue(e.Name()) {
		t.Errorf("the engine's name %q is no --backend value: lower case, one word", e.Name())
	}
	kinds := emit.KindNames(e)
	if len(kinds) == 0 {
		t.Fatal("the engine has no kinds")
	}
	for i, k := range kinds {
		if !flagValue(k) || slices.Contains(kinds[:i], k) {
			t.Errorf("kind %q is no --kind value (lower case, one word), or named twice in %v", k, kinds)
		}
	}
	if e.Kinds()[0].Schedule {
		t.Errorf("the default kind %q starts its runs on a schedule; a compile without --kind, and lint, emit it "+
			"for every pipeline, with a schedule or not", kinds[0])
	}
}

// flagValue reports whether s is a value of --backend or --kind: lower
// case, one word.
func flagValue(s string) bool {
	return s != "" && s == strings.ToLower(s) && !strings.ContainsAny(s, " :,")
}

// checkAccepts asks e twice whether it runs p as kind: the same answer,
// p unchanged, the default's for kind "" too; a refusal is a coded error
// at a file, and Emit refuses p.
func checkAccepts(t *testing.T, e emit.Engine, p *ir.Pipeline, kind string) {
	before := Tree(t, p)
	shape := emit.Accepts(e, p, kind)
	if again := emit.Accepts(e, p, kind); !reflect.DeepEqual(shape, again) {
		t.Errorf("kind %q: Accepts says %v, then %v", kind, shape, again)
	}
	if !reflect.DeepEqual(before, Tree(t, p)) {
		t.Errorf("kind %q: Accepts changed the pipeline", kind)
	}
	if kind == e.Kinds()[0].Name && !reflect.DeepEqual(shape, emit.Accepts(e, p, "")) {
		t.Errorf("kind %q, the default: Accepts says %v, and for kind \"\" %v", kind, shape, emit.Accepts(e, p, ""))
	}
	checkDiagnostics(t, e, shape, true)
	if len(shape) == 0 {
		return
	}
	if res, err := emit.Emit(e, p, emit.Options{Kind: kind}); err != nil || len(res.Refused) == 0 {
		t.Errorf("kind %q: Accepts refuses the pipeline (%v), and Emit does not: %v", kind, shape, err)
	}
}

// checkEmit emits p twice as opts asks and checks the result.
func checkEmit(t *testing.T, e emit.Engine, p *ir.Pipeline, opts emit.Options) {
	first, firstBytes := emitted(t, e, p, opts)
	_, second := emitted(t, e, p, opts)
	if !bytes.Equal(firstBytes, second) {
		t.Errorf("kind %q: two emits of one pipeline differ", opts.Kind)
	}
	checkDiagnostics(t, e, first.Refused, true)
	checkDiagnostics(t, e, first.Warnings, false)
	if len(first.Refused) > 0 {
		if first.Run != nil {
			t.Errorf("kind %q: refused, yet a run object: %v", opts.Kind, first.Refused)
		}
		return
	}
	if first.Run == nil {
		t.Errorf("kind %q: neither refused nor a run object", opts.Kind)
	}
	for i, obj := range first.Objects() {
		tree := Tree(t, obj)
		meta, _ := tree["metadata"].(map[string]any)
		if tree["apiVersion"] == nil || tree["kind"] == nil || meta == nil ||
			(meta["name"] == nil && meta["generateName"] == nil) {
			t.Errorf("kind %q: object %d has no apiVersion, kind or name: %v", opts.Kind, i, tree)
		}
	}
}

// emitted is e's result for p, as the command emits it, and its objects
// as YAML; an engine's error, a bug, fails t.
func emitted(t *testing.T, e emit.Engine, p *ir.Pipeline, opts emit.Options) (emit.Result, []byte) {
	t.Helper()
	res, err := emit.Emit(e, p, opts)
	if err != nil {
		t.Fatalf("kind %q: %v", opts.Kind, err)
	}
	if len(res.Refused) > 0 {
		return res, []byte(res.Refused.Error())
	}
	out, err := emit.Encode(res.Objects()...)
	if err != nil {
		t.Fatalf("kind %q: encoding: %v", opts.Kind, err)
	}
	return res, out
}

// checkDiagnostics: each refusal an error, each warning a warning or a
// note, with a documented code, a place, and the engine in its field.
func checkDiagnostics(t *testing.T, e emit.Engine, ds diag.Diagnostics, refusals bool) {
	for _, d := range ds {
		switch {
		case refusals != (d.Severity == diag.Error) || d.Code == "" || refusals != diag.IsError(d.Code) ||
			!refusals && !diag.Known(d.Code):
			t.Errorf("%v: a %s's code must be documented as one", d,
				map[bool]string{true: "refusal", false: "warning"}[refusals])
		case d.Pos.File == "":
			t.Errorf("%v: at no file", d)
		case d.Engine != e.Name():
			t.Errorf("%v: its engine is %q, want %q", d, d.Engine, e.Name())
		case strings.HasPrefix(d.Message, e.Name()+": "):
			t.Errorf("%v: the message names the engine, which the Engine field says", d)
		}
	}
}

// rbacKinds are the objects RBAC may be.
var rbacKinds = []string{"ServiceAccount", "Role", "RoleBinding", "Secret"}

// checkRBAC: asked for, RBAC is the objects of rbacKinds, or a warning
// says why there is none; a refusal is the spec's (such as no namespace).
func checkRBAC(t *testing.T, e emit.Engine, p *ir.Pipeline) {
	res, err := emit.Emit(e, p, emit.Options{RBAC: true})
	if err != nil {
		t.Fatalf("RBAC: %v", err)
	}
	if len(res.Refused) > 0 {
		checkDiagnostics(t, e, res.Refused, true)
		return
	}
	for _, obj := range res.RBAC {
		if kind, _ := Tree(t, obj)["kind"].(string); !slices.Contains(rbacKinds, kind) {
			t.Errorf("RBAC holds a %s, want only %v", kind, rbacKinds)
		}
	}
	if len(res.RBAC) == 0 && !slices.ContainsFunc(res.Warnings, func(d diag.Diagnostic) bool { return d.Code != "" }) {
		t.Error("RBAC asked for, and neither objects nor a warning saying why there are none")
	}
}
