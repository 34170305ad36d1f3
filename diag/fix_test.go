package diag

import (
	"fmt"
	"slices"
	"testing"
)

// fixAt is an error at line and col of file whose fix writes new in place
// of old there.
func fixAt(file string, line, col int, old, new string) Diagnostic {
	pos := Pos{File: file, Line: line, Col: col}
	return Errorf(UnknownName, At(pos), "no %q", old).WithFix(fmt.Sprintf("did you mean %q?", new),
		Edit{Pos: pos, Old: old, New: new})
}

func TestApplyFixes(t *testing.T) {
	src := map[string][]byte{
		"p.yaml": []byte("steps:\n  eval: {after: [trian, 'prep'], imagee: x}\n  \"tset\": {}\n"),
		// Columns count characters: é is one, of two bytes.
		"m.yaml": []byte("docker: {image: \"ééé\", imagee: y}\r\nname: café\r\n"),
	}
	twice := fixAt("p.yaml", 2, 34, "imagee", "image")
	twice.Engine = "tekton" // a second engine's diagnostic of one problem: one edit
	for _, c := range []struct {
		name          string
		ds            Diagnostics
		want          map[string]string
		fixed, refuse int
	}{
		{"several edits on one line, bare and quoted", Diagnostics{
			fixAt("p.yaml", 2, 18, "trian", "train"), fixAt("p.yaml", 2, 25, "prep", "it's"),
			fixAt("p.yaml", 2, 34, "imagee", "image"), fixAt("p.yaml", 3, 3, "tset", `a "test"`), twice,
		}, map[string]string{"p.yaml": "steps:\n  eval: {after: [train, 'it''s'], image: x}\n" +
			"  \"a \\\"test\\\"\": {}\n"}, 5, 0},
		{"columns in characters, CRLF lines", Diagnostics{
			fixAt("m.yaml", 1, 24, "imagee", "image"), fixAt("m.yaml", 2, 7, "café", "cafe"),
		}, map[string]string{"m.yaml": "docker: {image: \"ééé\", image: y}\r\nname: cafe\r\n"}, 2, 0},
		{"two fixes of one span: the first in order of their edits", Diagnostics{
			fixAt("p.yaml", 2, 18, "trian", "train"), fixAt("p.yaml", 2, 18, "trian", "trial"),
		}, map[string]string{"p.yaml": "steps:\n  eval: {after: [train, 'prep'], imagee: x}\n  \"tset\": {}\n"}, 1, 1},
		{"overlapping spans", Diagnostics{
			fixAt("p.yaml", 2, 18, "trian", "train"), fixAt("p.yaml", 2, 20, "ian", "x"),
		}, map[string]string{"p.yaml": "steps:\n  eval: {after: [train, 'prep'], imagee: x}\n  \"tset\": {}\n"}, 1, 1},
		{"text not there: part of a word, another word, past the line, no file, no line, no Old", Diagnostics{
			fixAt("p.yaml", 2, 18, "tri", "t"), fixAt("p.yaml", 2, 18, "eval", "e"), fixAt("p.yaml", 2, 80, "x", "y"),
			fixAt("q.yaml", 1, 1, "steps", "s"), fixAt("p.yaml", 0, 0, "steps", "s"),
			fixAt("p.yaml", 1, 1, "", "s"), fixAt("p.yaml", 9, 1, "steps", "s"),
		}, map[string]string{}, 0, 7},
	} {
		reversed := slices.Clone(c.ds)
		slices.Reverse(reversed)
		for _, ds := range []Diagnostics{c.ds, reversed} {
			files, fixed, refused := ApplyFixes(src, ds)
			got := map[string]string{}
			for f, b := range files {
				got[f] = string(b)
			}
			if fmt.Sprint(got) != fmt.Sprint(c.want) || len(fixed) != c.fixed || len(refused) != c.refuse {
				t.Errorf("%s:\n%q, %d fixed, %d refused\nwant:\n%q, %d fixed, %d refused", c.name, got, len(fixed),
					len(refused), c.want, c.fixed, c.refuse)
			}
		}
	}
	if string(src["p.yaml"]) != "steps:\n  eval: {after: [trian, 'prep'], imagee: x}\n  \"tset\": {}\n" {
		t.Errorf("src changed: %q", src["p.yaml"])
	}
}

// A fix is made whole or not at all, and only a diagnostic's first fix
// with edits is made: the others are other ways to mend it.
func TestApplyFixesWholeFirstFix(t *testing.T) {
	src := map[string][]byte{"p.yaml": []byte("a: [x, y]\n")}
	at := At(Pos{File: "p.yaml", Line: 1, Col: 5})
	half := Errorf(UnknownName, at, "no x").WithFix("rename both",
		Edit{Pos: Pos{File: "p.yaml", Line: 1, Col: 5}, Old: "x", New: "xx"},
		Edit{Pos: Pos{File: "p.yaml", Line: 1, Col: 8}, Old: "z", New: "zz"})
	if files, fixed, refused := ApplyFixes(src, Diagnostics{half}); len(files) != 0 || len(fixed) != 0 ||
		len(refused) != 1 {
		t.Errorf("a fix of which one edit cannot be made: %q, %d fixed, %d refused", files, len(fixed), len(refused))
	}
	first := Errorf(UnknownName, at, "no x").WithFix("advice alone").
		WithFix("one way", Edit{Pos: Pos{File: "p.yaml", Line: 1, Col: 5}, Old: "x", New: "one"}).
		WithFix("another", Edit{Pos: Pos{File: "p.yaml", Line: 1, Col: 8}, Old: "y", New: "other"})
	if files, _, _ := ApplyFixes(src, Diagnostics{first}); string(files["p.yaml"]) != "a: [one, y]\n" {
		t.Errorf("the first fix with edits: %q", files["p.yaml"])
	}
}
