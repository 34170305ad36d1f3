package enginetest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// Root is the repository's root: the first folder up from the test's
// working folder (its package's) that holds go.mod.
func Root(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("no go.mod above the test's folder")
		}
		dir = up
	}
}

// Example is the folder of examples/name.
func Example(t testing.TB, name string) string {
	t.Helper()
	return filepath.Join(Root(t), "examples", name)
}

// Emitted is a compilation and what one engine made of it: what the
// command prints for one --backend. A test compiles the specs itself
// (compiler.Compile, after compiler.Pair, with the NeedValues of the
// engine's kind) and hands the IR to Emit: backends see the compiler only
// through its IR, so this package may not import it.
type Emitted struct {
	emit.Result
	// Diags are the compiler's errors and warnings, then the engine's
	// warnings and refusals: what the command prints on stderr.
	Diags diag.Diagnostics
	// Shape are the engine's refusals of the pipeline's shape (its
	// Accepts, asked for the kind emitted): --backend all and lint leave
	// the engine out rather than report them.
	Shape diag.Diagnostics
}

// Emit emits p, which the compiler made with diags, with e and opts, as
// the command does: specs with errors are not emitted. An engine's error,
// a bug, fails t.
func Emit(t testing.TB, e emit.Engine, p *ir.Pipeline, diags diag.Diagnostics, opts emit.Options) Emitted {
	t.Helper()
	out := Emitted{Diags: diags}
	if diags.HasErrors() {
		return out
	}
	res, err := emit.Emit(e, p, opts)
	if err != nil {
		t.Fatalf("%s: %v", e.Name(), err)
	}
	out.Result, out.Shape = res, emit.Accepts(e, p, opts.Kind)
	out.Diags = append(append(out.Diags, res.Warnings...), res.Refused...)
	return out
}

// Failed says whether the command would fail (exit 1, nothing on
// stdout): the specs have errors, or the engine refused them.
func (o Emitted) Failed() bool { return o.Diags.HasErrors() }

// Must fails t when the command would fail, with its diagnostics, and
// returns o.
func (o Emitted) Must(t testing.TB) Emitted {
	t.Helper()
	if o.Failed() {
		t.Fatalf("the specs do not compile:\n%s", o.Stderr())
	}
	return o
}

// Stderr is every diagnostic, one a line, as the command prints them.
func (o Emitted) Stderr() string {
	var lines []string
	for _, d := range o.Diags {
		lines = append(lines, d.String())
	}
	return strings.Join(lines, "\n")
}

// YAML is the objects as the command prints them; "" when there are none.
func (o Emitted) YAML(t testing.TB) string {
	t.Helper()
	if o.Run == nil {
		return ""
	}
	out, err := emit.Encode(o.Objects()...)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// Tree is obj as the plain maps, lists and values of its JSON (so of its
// YAML), as a manifest reads decoded without its type.
func Tree(t testing.TB, obj any) map[string]any {
	t.Helper()
	raw, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}
