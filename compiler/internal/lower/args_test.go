package lower

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// refsOf is the paramRefs of params named names, those of given with a
// compile-time value.
func refsOf(names []string, given map[string]string) *paramRefs {
	r := &paramRefs{names: map[string]bool{}, used: map[string]bool{}, atRunTime: map[string]bool{}, given: given}
	for _, n := range names {
		r.names[n] = true
	}
	return r
}

// A reference to a param becomes the engine's own; in a job's manifest a
// param with a compile-time value becomes that value, and one without is
// refused; a reference to no param stays as written and is refused; a $
// or { right before a reference is refused; with no place, nothing is.
func TestParse(t *testing.T) {
	text := func(pieces ...ir.Piece) ir.Text { return pieces }
	lit := func(s string) ir.Piece { return ir.Piece{Literal: s} }
	ref := func(p string) ir.Piece { return ir.Piece{Param: p} }
	for _, c := range []struct {
		name, in, job string
		want          ir.Text
		problem       string
		used, runTime []string
	}{
		{"engine", "--lr=${params.lr}/x", "", text(lit("--lr="), ref("lr"), lit("/x")), "", []string{"lr"},
			[]string{"lr"}},
		{"spaces", "${ params.lr }", "", text(ref("lr")), "", []string{"lr"}, []string{"lr"}},
		{"given, engine", "${params.seed}", "", text(ref("seed")), "", []string{"seed"}, []string{"seed"}},
		{"given, job", "-s ${params.seed}", "an MPIJob", text(lit("-s 42")), "", []string{"seed"}, nil},
		{"no value, job", "${params.lr}", "a TrainJob", text(ref("lr")),
			"${params.lr}: this step runs as a TrainJob, and lr has no value at compile time", []string{"lr"},
			[]string{"lr"}},
		{"no param", "a${params.nope}b", "", text(lit("a${params.nope}b")), "no param", nil, nil},
		{"dollar", "$${params.lr}", "", text(lit("$"), ref("lr")),
			`"$" right before ${params.lr} would join with its value into engine syntax`, []string{"lr"},
			[]string{"lr"}},
		{"brace", "{${params.lr}}", "", text(lit("{"), ref("lr"), lit("}")), `"{" right before ${params.lr}`,
			[]string{"lr"}, []string{"lr"}},
	} {
		r := refsOf([]string{"lr", "seed"}, map[string]string{"seed": "42"})
		at := diag.At(diag.Pos{File: "pipeline.yaml", Line: 1, Col: 1}).Field("args")
		got, diags := r.parse(c.in, &at, c.job)
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s: text (-want +got):\n%s", c.name, diff)
		}
		switch {
		case c.problem == "" && len(diags) > 0:
			t.Errorf("%s: %v", c.name, diags)
		case c.problem != "" && (len(diags) != 1 || !strings.Contains(diags[0].Message, c.problem)):
			t.Errorf("%s: diagnostics %v, want one with %q", c.name, diags, c.problem)
		}
		if used, runTime := slices.Sorted(maps.Keys(r.used)), slices.Sorted(maps.Keys(r.atRunTime)); !slices.Equal(used,
			c.used) || !slices.Equal(runTime, c.runTime) {
			t.Errorf("%s: used %v, at run time %v; want %v, %v", c.name, used, runTime, c.used, c.runTime)
		}
		if _, diags := refsOf([]string{"lr"}, nil).parse(c.in, nil, c.job); len(diags) > 0 {
			t.Errorf("%s: with no place, %v", c.name, diags)
		}
	}
}

// A command splits into words as a shell would; one it cannot split is
// refused.
func TestWords(t *testing.T) {
	at := diag.At(diag.Pos{File: "mlcube.yaml", Line: 1, Col: 1}).Field("entrypoint")
	got, diags := words(`python "train it.py" --x='a b'`, at)
	if want := []string{"python", "train it.py", "--x=a b"}; !slices.Equal(got, want) || len(diags) > 0 {
		t.Errorf("got %q %v, want %q", got, diags, want)
	}
	if _, diags := words(`python "train.py`, at); len(diags) != 1 || diags[0].Code != diag.BadCommand {
		t.Errorf("an open quote: %v", diags)
	}
}

// Paths are cleaned, keeping references; neighbouring literals join.
func TestPathPieces(t *testing.T) {
	for in, want := range map[string]string{".": "", "./a//b/": "a/b", "a/../b": "b", "${params.d}/./x": "${params.d}/x",
		"../x": "../x"} {
		if got := cleanKeepParams(in); got != want {
			t.Errorf("cleanKeepParams(%q) = %q, want %q", in, got, want)
		}
	}
	got := mergeLiterals(ir.Text{{Literal: "a"}, {Literal: "b"}, {Param: "p"}, {Literal: "c"}, {Literal: "d"}})
	if want := (ir.Text{{Literal: "ab"}, {Param: "p"}, {Literal: "cd"}}); !cmp.Equal(got, want) {
		t.Errorf("mergeLiterals = %v, want %v", got, want)
	}
}
