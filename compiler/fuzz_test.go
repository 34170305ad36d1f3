package compiler

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
func checkDiagnostics(t *testing.T, diags Diagnostics, via string) {
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
		decoders := []func(file string, diags *Diagnostics){
			func(file string, diags *Diagnostics) {
				if ast, ok := parseYAML(file, "spec", src, diags); ok {
					decodeCube(s, ast, diags)
				}
			},
			func(file string, diags *Diagnostics) {
				if ast, ok := parseYAML(file, "spec", src, diags); ok {
					decodePlatform(s, ast, diags)
				}
			},
			func(file string, diags *Diagnostics) {
				if ast, ok := parseYAML(file, "spec", src, diags); ok {
					decodeLegacyPlatform(s, ast, diags)
				}
			},
			func(file string, diags *Diagnostics) {
				if ast, ok := parseYAML(file, "spec", src, diags); ok {
					newLoader(s, diags).decodePipeline(ast, func() *cube { return nil })
				}
			},
		}
		for _, decode := range decoders {
			var first, second Diagnostics
			decode("spec.yaml", &first)
			checkDiagnostics(t, first, "spec")
			decode("spec.yaml", &second)
			sameTwice(t, first, second)
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
		var diags, again Diagnostics
		vars := parseEnvFile("x.env", src, "steps.s.envFile", &diags)
		checkDiagnostics(t, diags, "steps.s.envFile")
		varsAgain := parseEnvFile("x.env", src, "steps.s.envFile", &again)
		sameTwice(t, fmt.Sprint(diags, vars), fmt.Sprint(again, varsAgain))
		for _, v := range vars {
			if !envKey.MatchString(v.Name) || templateSyntax(v.Value) != "" || v.Pos.Line < 1 {
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
		read := func() (Diagnostics, []paramValue) {
			var d Diagnostics
			file, ok := parseYAML("values.yaml", "-f", src, &d)
			if !ok {
				return d, nil
			}
			return d, decodeValues(s, file, &d)
		}
		d1, v1 := read()
		d2, v2 := read()
		sameTwice(t, fmt.Sprint(d1, v1), fmt.Sprint(d2, v2))
		var diags Diagnostics
		file, ok := parseYAML("values.yaml", "-f", src, &diags)
		if !ok {
			checkDiagnostics(t, diags, "-f")
			return
		}
		values := decodeValues(s, file, &diags)
		p := &pipelineSpec{File: "pipeline.yaml", Params: []*pipelineParam{{Name: "epochs"}, {Name: "size", Enum: []string{"small", "large"}}}}
		applyValues(p, values, &diags)
		checkDiagnostics(t, diags, "-f")
		for _, v := range values {
			if v.Pos.Line < 1 || v.Field == "" {
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
	var diags Diagnostics
	if _, ok := parseYAML("bomb.yaml", "--platform", aliasBomb(), &diags); ok || !strings.Contains(diags.Error(), "aliases expand to more than") {
		t.Errorf("accepted, or refused for another reason: %v", diags)
	}
}

// BenchmarkAliasBomb measures the time and memory a refused alias bomb
// costs; issue 7 bounds them at 1 s and 200 MB.
func BenchmarkAliasBomb(b *testing.B) {
	src := aliasBomb()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		var diags Diagnostics
		parseYAML("bomb.yaml", "--platform", src, &diags)
	}
}

// TestLineBreaks parses files with CRLF and lone CR line breaks; a lone CR
// once crashed CUE's decoder (found by FuzzCompile).
func TestLineBreaks(t *testing.T) {
	for _, src := range []string{"\r\r0", "name: x\r\ntasks: {}\r\n", "name: x\rtasks: {}\r"} {
		var diags Diagnostics
		f, ok := parseYAML("f.yaml", "--mlcube", []byte(src), &diags)
		if src != "\r\r0" && (!ok || !hasTopLevel(f, "tasks")) {
			t.Errorf("%q: not read as a mapping with tasks: %v", src, diags)
		}
	}
}
