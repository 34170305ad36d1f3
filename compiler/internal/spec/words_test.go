package spec

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/token"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/source"
	"github.com/mlcube-compile/mlcube-compile/diag"
	"github.com/mlcube-compile/mlcube-compile/schema"
)

// cueWords are what CUE's own messages hold and ours must not.
var cueWords = regexp.MustCompile(`incomplete value|conflicting values|empty disjunction|out of bound|` +
	`does not satisfy|not allowed|=~|!~|_\|_| & |MaxRunes|mismatched types|required but not present`)

// TestEveryRefusalInWords puts a wrong value in place of each value of
// every example's platform, pipeline and cube file in turn (a list, a
// number, words with a space, a negative number, an empty string) and
// checks that whatever the schema says of it is said in words, never in
// CUE's.
func TestEveryRefusalInWords(t *testing.T) {
	s, err := schema.Load()
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	_ = filepath.WalkDir("../../../examples", func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && decoderOf(path) != nil {
			files = append(files, path)
		}
		return nil
	})
	if len(files) < 20 {
		t.Fatalf("%d example files, want at least 20", len(files))
	}
	wrong := []func(pos token.Pos) ast.Expr{
		func(pos token.Pos) ast.Expr {
			return &ast.ListLit{Lbrack: pos, Elts: []ast.Expr{ast.NewLit(token.INT, "1")}}
		},
		func(pos token.Pos) ast.Expr { return &ast.BasicLit{ValuePos: pos, Kind: token.INT, Value: "-1"} },
		func(pos token.Pos) ast.Expr { return &ast.BasicLit{ValuePos: pos, Kind: token.STRING, Value: `"a b"`} },
		func(pos token.Pos) ast.Expr { return &ast.BasicLit{ValuePos: pos, Kind: token.STRING, Value: `""`} },
		func(pos token.Pos) ast.Expr { return &ast.BasicLit{ValuePos: pos, Kind: token.FLOAT, Value: "99999.5"} },
	}
	if testing.Short() {
		wrong = wrong[:3]
	}
	checked := 0
	s.Do(func(sc *schema.Context) {
		for _, file := range files {
			decode := decoderOf(file)
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			f, _ := source.ParseYAML(file, source.Flag("spec"), src)
			if f == nil {
				continue
			}
			for _, lit := range scalars(f) {
				saved := *lit
				for _, w := range wrong {
					f, _ := source.ParseYAML(file, source.Flag("spec"), src)
					replaceScalar(f, saved.ValuePos, w(saved.ValuePos))
					for _, d := range decode(sc, f) {
						checked++
						if m := cueWords.FindString(d.Message); m != "" {
							t.Errorf("%s: %s: CUE's %q: %s", file, d.Field, m, d.Message)
						}
					}
				}
			}
		}
	})
	if checked < 500 {
		t.Errorf("%d diagnostics checked, want at least 500", checked)
	}
}

// decoderOf is the decoder of a spec file, by its name; nil for another
// file.
func decoderOf(path string) func(sc *schema.Context, f *ast.File) diag.Diagnostics {
	base := filepath.Base(path)
	switch {
	case base == "mlcube.yaml":
		return func(sc *schema.Context, f *ast.File) diag.Diagnostics { _, d := decodeCube(sc, f); return d }
	case strings.HasPrefix(base, "platform") && strings.HasSuffix(base, ".yaml") &&
		filepath.Base(filepath.Dir(path)) != "platforms":
		return func(sc *schema.Context, f *ast.File) diag.Diagnostics { _, d := decodePlatform(sc, f); return d }
	case base == "pipeline.yaml":
		return func(sc *schema.Context, f *ast.File) diag.Diagnostics {
			l := newLoader(sc, source.New(nil))
			l.decodePipeline(f, func() *Cube { return nil })
			return l.diags
		}
	}
	return nil
}

// scalars are the scalar values of a file, in order.
func scalars(f *ast.File) []*ast.BasicLit {
	var out []*ast.BasicLit
	ast.Walk(f, func(n ast.Node) bool {
		if lit, ok := n.(*ast.BasicLit); ok {
			out = append(out, lit)
		}
		return true
	}, nil)
	return out
}

// replaceScalar puts x in place of the value of f's field or list item at
// pos.
func replaceScalar(f *ast.File, pos token.Pos, x ast.Expr) {
	ast.Walk(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Field:
			if lit, ok := n.Value.(*ast.BasicLit); ok && samePlace(lit.ValuePos, pos) {
				n.Value = x
			}
		case *ast.ListLit:
			for i, e := range n.Elts {
				if lit, ok := e.(*ast.BasicLit); ok && samePlace(lit.ValuePos, pos) {
					n.Elts[i] = x
				}
			}
		}
		return true
	}, nil)
}

// samePlace reports whether two positions, of two parses of one file,
// are one place.
func samePlace(a, b token.Pos) bool { return a.Line() == b.Line() && a.Column() == b.Column() }
