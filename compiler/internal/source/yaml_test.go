package source

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/spectest"
)

// FuzzEnvFile feeds bytes to the env file parser. Whatever it accepts must
// be a valid variable whose value holds no engine syntax.
func FuzzEnvFile(f *testing.F) {
	spectest.AddSeeds(f, "../../..", ".env")
	for _, seed := range []string{"A=1\n", "export B='x y'\n# c\n\nC=\"q\"\n", "bad line\n", "D=$(id)\n", "E={{x}}\n",
		"=1\n", "F==\n"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		at := Flag("steps").Field("s").Field("envFile")
		vars, diags := parseEnvFile("x.env", src, at)
		spectest.CheckDiagnostics(t, diags, "steps.s.envFile")
		varsAgain, again := parseEnvFile("x.env", src, at)
		spectest.SameTwice(t, fmt.Sprint(diags, vars), fmt.Sprint(again, varsAgain))
		for _, v := range vars {
			if msg, _ := TemplateSyntax(v.Value); !envKey.MatchString(v.Name) || msg != "" || v.Loc.Pos().Line < 1 {
				t.Fatalf("accepted %#v", v)
			}
		}
	})
}

// aliasBomb is a "billion laughs" document: ten levels of nine aliases.
func aliasBomb() []byte {
	var b strings.Builder
	b.WriteString("a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; i < 10; i++ {
		fmt.Fprintf(&b, "a%d: &a%d [", i, i)
		for j := 0; j < 9; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*a%d", i-1)
		}
		b.WriteString("]\n")
	}
	return []byte(b.String())
}

func TestAliasBombIsRefused(t *testing.T) {
	if f, diags := ParseYAML("bomb.yaml", Flag("--platform"), aliasBomb()); f != nil ||
		!strings.Contains(diags.Error(), "aliases expand to more than") {
		t.Errorf("accepted, or refused for another reason: %v", diags)
	}
}

// BenchmarkAliasBomb measures the time and memory a refused alias bomb
// costs; issue 7 bounds them at 1 s and 200 MB.
func BenchmarkAliasBomb(b *testing.B) {
	src := aliasBomb()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		ParseYAML("bomb.yaml", Flag("--platform"), src)
	}
}

// TestLineBreaks parses files with CRLF and lone CR line breaks; a lone CR
// once crashed CUE's decoder (found by FuzzCompile).
func TestLineBreaks(t *testing.T) {
	for _, src := range []string{"\r\r0", "name: x\r\ntasks: {}\r\n", "name: x\rtasks: {}\r"} {
		f, diags := ParseYAML("f.yaml", Flag("--mlcube"), []byte(src))
		if src != "\r\r0" && (f == nil || !HasTopLevel(f, "tasks")) {
			t.Errorf("%q: not read as a mapping with tasks: %v", src, diags)
		}
	}
}
