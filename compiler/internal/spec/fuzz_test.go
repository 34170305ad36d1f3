package spec

import (
	"fmt"
	"testing"

	"cuelang.org/go/cue/ast"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/source"
	"github.com/mlcube-compile/mlcube-compile/compiler/internal/spectest"
	"github.com/mlcube-compile/mlcube-compile/diag"
	"github.com/mlcube-compile/mlcube-compile/schema"
)

// testSchema loads the shared schema for a fuzz target or a benchmark,
// whose runs each use it through Do.
func testSchema(tb testing.TB) *schema.Schema {
	s, err := schema.Load()
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// FuzzSpec feeds bytes to the front end as every kind of spec: the YAML
// parser, the tree checks, reference resolution and the CUE schemas.
func FuzzSpec(f *testing.F) {
	spectest.AddSeeds(f, "../../..", ".yaml")
	s := testSchema(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		s.Do(func(sc *schema.Context) { fuzzSpec(t, sc, src) })
	})
}

// fuzzSpec is one run of FuzzSpec, in the schema's Context sc.
func fuzzSpec(t *testing.T, sc *schema.Context, src []byte) {
	decoders := []func(f *ast.File) diag.Diagnostics{
		func(f *ast.File) diag.Diagnostics { _, diags := decodeCube(sc, f); return diags },
		func(f *ast.File) diag.Diagnostics { _, diags := decodePlatform(sc, f); return diags },
		func(f *ast.File) diag.Diagnostics { _, diags := decodeLegacyPlatform(sc, f); return diags },
		func(f *ast.File) diag.Diagnostics {
			_, diags := decodeCompactRoot(sc, source.New(nil), f, nil)
			return diags
		},
		func(f *ast.File) diag.Diagnostics {
			l := newLoader(sc, source.New(nil))
			l.decodePipeline(f, func() *Cube { return nil })
			return l.diags
		},
	}
	decodeFile := func(decode func(f *ast.File) diag.Diagnostics) diag.Diagnostics {
		f, diags := source.ParseYAML("spec.yaml", source.Flag("spec"), src)
		if f == nil {
			return diags
		}
		return append(diags, decode(f)...)
	}
	for _, decode := range decoders {
		first := decodeFile(decode)
		spectest.CheckDiagnostics(t, first, "spec")
		spectest.SameTwice(t, first, decodeFile(decode))
	}
}

// FuzzValues feeds bytes to the values-file reader (-f) and applies what
// it accepts to a pipeline's params. Every accepted value is a scalar with
// its position, and fills the param it names and no other.
func FuzzValues(f *testing.F) {
	spectest.AddSeeds(f, "../../..", "values.yaml")
	for _, seed := range []string{"epochs: 10\n", "size: large\nepochs: '3'\n", "epochs: {a: 1}\n", "nope: 1\n",
		"epochs: [1]\n", "epochs: null\n", "epochs: true\n", "\"ep ochs\": 1\n"} {
		f.Add([]byte(seed))
	}
	s := testSchema(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		s.Do(func(sc *schema.Context) { fuzzValues(t, sc, src) })
	})
}

// fuzzValues is one run of FuzzValues, in the schema's Context sc.
func fuzzValues(t *testing.T, sc *schema.Context, src []byte) {
	read := func() (diag.Diagnostics, []ParamValue) {
		file, diags := source.ParseYAML("values.yaml", source.Flag("-f"), src)
		if file == nil {
			return diags, nil
		}
		values, more := decodeValues(sc, file)
		return append(diags, more...), values
	}
	d1, v1 := read()
	d2, v2 := read()
	spectest.SameTwice(t, fmt.Sprint(d1, v1), fmt.Sprint(d2, v2))
	diags, values := read()
	if diags.HasErrors() {
		spectest.CheckDiagnostics(t, diags, "-f")
		return
	}
	p := &Pipeline{File: "pipeline.yaml",
		Params: []*PipelineParam{{Name: "epochs"}, {Name: "size", Enum: []string{"small", "large"}}}}
	diags = append(diags, ApplyValues(p, values, false)...)
	spectest.CheckDiagnostics(t, diags, "-f")
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
}
