package compiler

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cuelang.org/go/cue/ast"

	"github.com/mlcube-compile/mlcube-compile/diag"
	"github.com/mlcube-compile/mlcube-compile/schema"
)

// addSpecSeeds seeds a fuzz target with every YAML file of the examples
// and of the bad-input corpus.
func addSpecSeeds(f *testing.F, ext string) {
	for _, root := range []string{"../examples", "../testdata/bad", "../../shared/cubes"} {
		_ = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ext) {
				return nil
			}
			if info, err := d.Info(); err != nil || info.Size() > 1<<16 {
				return nil
			}
			if src, err := os.ReadFile(path); err == nil {
				f.Add(src)
			}
			return nil
		})
	}
}

// fuzzSchema loads the shared schema for a fuzz target, whose inputs
// each hold its lock.
func fuzzSchema(f *testing.F) *schema.Schema {
	s, err := schema.Load()
	if err != nil {
		f.Fatal(err)
	}
	return s
}

// checkDiagnostics fails on a diagnostic that does not say where or what.
// sameTwice fails when two runs on one input said different things.
func sameTwice(t *testing.T, first, second any) {
	t.Helper()
	if a, b := fmt.Sprint(first), fmt.Sprint(second); a != b {
		t.Fatalf("the same input gave different results:\n%s\n---\n%s", a, b)
	}
}

// Only a problem with the file as a whole, named by via (the flag or key
// that named the file), has no line and column.
func checkDiagnostics(t *testing.T, diags diag.Diagnostics, via string) {
	for _, d := range diags {
		if d.Pos.File == "" || d.Message == "" {
			t.Fatalf("diagnostic without a file or a message: %#v", d)
		}
		if (d.Pos.Line < 1 || d.Pos.Col < 1) && d.Field != via {
			t.Fatalf("diagnostic about %s without a line and column: %#v", d.Field, d)
		}
	}
}

// FuzzSpec feeds bytes to the front end as every kind of spec: the YAML
// parser, the tree checks, reference resolution and the CUE schemas.
func FuzzSpec(f *testing.F) {
	addSpecSeeds(f, ".yaml")
	s := fuzzSchema(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		s.Lock()
		defer s.Unlock()
		decoders := []func(f *ast.File) diag.Diagnostics{
			func(f *ast.File) diag.Diagnostics { _, diags := decodeCube(s, f); return diags },
			func(f *ast.File) diag.Diagnostics { _, diags := decodePlatform(s, f); return diags },
			func(f *ast.File) diag.Diagnostics { _, diags := decodeLegacyPlatform(s, f); return diags },
			func(f *ast.File) diag.Diagnostics {
				l := newLoader(s)
				l.decodePipeline(f, func() *cube { return nil })
				return l.diags
			},
		}
		decodeFile := func(decode func(f *ast.File) diag.Diagnostics) diag.Diagnostics {
			f, diags := parseYAML("spec.yaml", flag("spec"), src)
			if f == nil {
				return diags
			}
			return append(diags, decode(f)...)
		}
		for _, decode := range decoders {
			first := decodeFile(decode)
			checkDiagnostics(t, first, "spec")
			sameTwice(t, first, decodeFile(decode))
		}
	})
}

// FuzzEnvFile feeds bytes to the env file parser. Whatever it accepts must
// be a valid variable whose value holds no engine syntax.
func FuzzEnvFile(f *testing.F) {
	addSpecSeeds(f, ".env")
	for _, seed := range []string{"A=1\n", "export B='x y'\n# c\n\nC=\"q\"\n", "bad line\n", "D=$(id)\n", "E={{x}}\n", "=1\n", "F==\n"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		at := flag("steps").Field("s").Field("envFile")
		vars, diags := parseEnvFile("x.env", src, at)
		checkDiagnostics(t, diags, "steps.s.envFile")
		varsAgain, again := parseEnvFile("x.env", src, at)
		sameTwice(t, fmt.Sprint(diags, vars), fmt.Sprint(again, varsAgain))
		for _, v := range vars {
			if !envKey.MatchString(v.Name) || templateSyntax(v.Value) != "" || v.Loc.Pos().Line < 1 {
				t.Fatalf("accepted %#v", v)
			}
		}
	})
}

// FuzzValues feeds bytes to the values-file reader (-f) and applies what
// it accepts to a pipeline's params. Every accepted value is a scalar with
// its position, and fills the param it names and no other.
func FuzzValues(f *testing.F) {
	addSpecSeeds(f, "values.yaml")
	for _, seed := range []string{"epochs: 10\n", "size: large\nepochs: '3'\n", "epochs: {a: 1}\n", "nope: 1\n", "epochs: [1]\n", "epochs: null\n", "epochs: true\n", "\"ep ochs\": 1\n"} {
		f.Add([]byte(seed))
	}
	s := fuzzSchema(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		s.Lock()
		defer s.Unlock()
		read := func() (diag.Diagnostics, []paramValue) {
			file, diags := parseYAML("values.yaml", flag("-f"), src)
			if file == nil {
				return diags, nil
			}
			values, more := decodeValues(s, file)
			return append(diags, more...), values
		}
		d1, v1 := read()
		d2, v2 := read()
		sameTwice(t, fmt.Sprint(d1, v1), fmt.Sprint(d2, v2))
		diags, values := read()
		if diags.HasErrors() {
			checkDiagnostics(t, diags, "-f")
			return
		}
		p := &pipelineSpec{File: "pipeline.yaml", Params: []*pipelineParam{{Name: "epochs"}, {Name: "size", Enum: []string{"small", "large"}}}}
		diags = append(diags, applyValues(p, values)...)
		checkDiagnostics(t, diags, "-f")
		for _, v := range values {
			if v.Loc.Pos().Line < 1 || v.Loc.Path() == "" {
				t.Fatalf("value without a position: %#v", v)
			}
		}
		for _, pp := range p.Params {
			if pp.Given == nil {
				if pp.Default != nil {
					t.Fatalf("%s got a default from nowhere", pp.Name)
				}
				continue
			}
			if pp.Given.Name != pp.Name || *pp.Default != pp.Given.Value {
				t.Fatalf("%s filled from %#v", pp.Name, pp.Given)
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
	if f, diags := parseYAML("bomb.yaml", flag("--platform"), aliasBomb()); f != nil || !strings.Contains(diags.Error(), "aliases expand to more than") {
		t.Errorf("accepted, or refused for another reason: %v", diags)
	}
}

// BenchmarkAliasBomb measures the time and memory a refused alias bomb
// costs; issue 7 bounds them at 1 s and 200 MB.
func BenchmarkAliasBomb(b *testing.B) {
	src := aliasBomb()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		parseYAML("bomb.yaml", flag("--platform"), src)
	}
}

// TestLineBreaks parses files with CRLF and lone CR line breaks; a lone CR
// once crashed CUE's decoder (found by FuzzCompile).
func TestLineBreaks(t *testing.T) {
	for _, src := range []string{"\r\r0", "name: x\r\ntasks: {}\r\n", "name: x\rtasks: {}\r"} {
		f, diags := parseYAML("f.yaml", flag("--mlcube"), []byte(src))
		if src != "\r\r0" && (f == nil || !hasTopLevel(f, "tasks")) {
			t.Errorf("%q: not read as a mapping with tasks: %v", src, diags)
		}
	}
}
