package diag

import (
	"encoding/json"
	"strconv"
	"testing"
)

// written is a Finder over a fixed set of paths, as a file writes them.
type written map[string]Pos

func (w written) Find(path []Elem) (Pos, bool) {
	for i := len(path); i > 0; i-- {
		if p, ok := w[Loc{elems: path[:i]}.key()]; ok {
			return p, i == len(path)
		}
	}
	return Pos{File: "f.yaml", Line: 1, Col: 1}, false
}

// key spells a path for the test's map, as Path would with no quoting.
func (l Loc) key() string {
	s := ""
	for _, e := range l.elems {
		if e.Item {
			s += "[]"
		}
		s += "/" + e.Name
	}
	return s
}

func TestLocPathsAndPositions(t *testing.T) {
	steps := Pos{File: "f.yaml", Line: 2, Col: 1}
	train := Pos{File: "f.yaml", Line: 3, Col: 3}
	top := In(written{"/steps": steps, "/steps/train": train})
	for _, c := range []struct {
		loc     Loc
		path    string
		pos     Pos
		written bool
	}{
		{top, "", Pos{File: "f.yaml", Line: 1, Col: 1}, false},
		{top.Field("steps").Field("train"), "steps.train", train, true},
		{top.Field("steps").Field("train").Field("args").Index(2), "steps.train.args[2]", train, false},
		{top.Field("steps").Field("my step"), `steps."my step"`, steps, false},
		{top.Field("configs").Field("X").Index(0).Index(1), "configs.X[0][1]", Pos{File: "f.yaml", Line: 1, Col: 1}, false},
		{top.Field("steps").Field("train").Field("env").At(steps).Field("A"), "steps.train.env.A", steps, false},
		{At(Pos{File: "--set"}).Field("epochs"), "epochs", Pos{File: "--set"}, false},
		{Loc{}.Index(2).Field("0"), "[2].0", Pos{}, false},
	} {
		if got := c.loc.Path(); got != c.path {
			t.Errorf("path %q, want %q", got, c.path)
		}
		if got := c.loc.Pos(); got != c.pos {
			t.Errorf("%s: position %v, want %v", c.path, got, c.pos)
		}
		if got := c.loc.Written(); got != c.written {
			t.Errorf("%s: written %v, want %v", c.path, got, c.written)
		}
	}
}

func TestLocsShareNoStorage(t *testing.T) {
	base := In(written{}).Field("a")
	b, c := base.Field("b"), base.Field("c")
	if b.Path() != "a.b" || c.Path() != "a.c" || b.elems[1].Name != "b" {
		t.Errorf("children overwrote each other: %q %q %v", b.Path(), c.Path(), b.elems)
	}
}

func TestDiagnosticsSortedAndPrinted(t *testing.T) {
	at := At(Pos{File: "p.yaml", Line: 3, Col: 5}).Field("steps")
	ds := Diagnostics{
		Warnf(NameCut, at.Field("b"), "w"),
		Errorf(BadShape, at.Field("a"), "e"),
		Errorf(BadShape, at.Field("a"), "e"),
		Errorf(BadFlag, At(Pos{File: "p.yaml"}).Field("--task"), "whole file"),
	}
	want := "p.yaml: --task: whole file [MLC750]\np.yaml:3:5: steps.a: e [MLC260]"
	if got := ds.Error(); got != want {
		t.Errorf("errors %q, want %q", got, want)
	}
	if w := ds.Warnings(); len(w) != 1 || w[0].String() != "p.yaml:3:5: warning: steps.b: w [MLC204]" {
		t.Errorf("warnings %v", w)
	}
	if !ds.HasErrors() || ds[:1].HasErrors() {
		t.Error("HasErrors counts warnings or misses errors")
	}
}

// A path is held once, as its elements: Path spells them as a path was
// always spelled (a name joined with a dot, quoted unless plain, an index
// in brackets), and a spelled path, read back from JSON, spells the same.
func TestPathSpelledAndReadBack(t *testing.T) {
	steps := []func(Loc) Loc{func(l Loc) Loc { return l.Index(0) }, func(l Loc) Loc { return l.Index(12) }}
	for _, name := range []string{"a", ".x", "a.", ".", "", "a b", `q"`, "nvidia.com/gpu", "[1]", "a..b"} {
		steps = append(steps, func(l Loc) Loc { return l.Field(name) })
	}
	n := 0
	var walk func(l Loc, spelled string, depth int)
	walk = func(l Loc, spelled string, depth int) {
		n++
		if got := l.Path(); got != spelled {
			t.Fatalf("%v: path %q, want %q", l.elems, got, spelled)
		}
		if path, ok := parsePath(spelled); !ok || FieldOf(path) != spelled {
			t.Fatalf("%q read back as %v (%v)", spelled, path, ok)
		}
		raw, err := json.Marshal(l)
		var back Loc
		if err != nil || json.Unmarshal(raw, &back) != nil || back.Path() != spelled {
			t.Fatalf("%s read back as %q", raw, back.Path())
		}
		if depth == 3 {
			return
		}
		for _, step := range steps {
			next := step(l)
			last := next.elems[len(next.elems)-1]
			switch {
			case last.Item:
				walk(next, spelled+"["+strconv.Itoa(last.Index)+"]", depth+1)
			case spelled == "":
				walk(next, spellName(last.Name), depth+1)
			default:
				walk(next, spelled+"."+spellName(last.Name), depth+1)
			}
		}
	}
	walk(At(Pos{File: "f.yaml", Line: 1, Col: 1}), "", 0)
	if n < 1000 {
		t.Errorf("%d paths tried", n)
	}
	for _, bad := range []string{"a b", "[x]", "[1", `a"b"`, `"a`, "[1].[2]", "[1].", `"a"b`, "a[1]x"} {
		if path, ok := parsePath(bad); ok {
			t.Errorf("%q read as the path %v", bad, path)
		}
	}
	var l Loc
	if err := json.Unmarshal([]byte(`{"file": "f.yaml", "path": "a b"}`), &l); err == nil {
		t.Error("a Loc read back with a path FieldOf does not spell")
	}
}

// A diagnostic's Field is its Path spelled.
func TestFieldIsPathSpelled(t *testing.T) {
	at := In(written{}).Field("steps").Field("my step").Field("args").Index(2)
	for _, d := range []Diagnostic{Errorf(BadShape, at, "e"), Warnf(NameCut, at, "w"), Notef(PlatformRead, at, "n")} {
		if d.Field != `steps."my step".args[2]` || d.Field != FieldOf(d.Path) {
			t.Errorf("field %q, path %v", d.Field, d.Path)
		}
	}
}
