package source

import (
	"cuelang.org/go/cue/ast"

	"github.com/mlcube-compile/mlcube-compile/diag"
)

// ReadYAMLKeepLast reads a YAML spec file as ReadYAML does, for the files
// a tool reads with PyYAML (MLCube 1.0's run and task files, through
// mlspeclib), which keeps the last of a key written twice in one mapping:
// the earlier ones are dropped, each with a warning, where ReadYAML
// refuses the file.
func (fl *Files) ReadYAMLKeepLast(path string, via diag.Loc) (*ast.File, diag.Diagnostics) {
	src, diags := fl.readSpecFile(path, via, "a YAML file")
	if diags != nil {
		return nil, diags
	}
	return parseYAML(path, via, src, true)
}

// dropEarlierKeys removes, from every mapping under decls, each key that
// the same mapping writes again later, and warns at it.
func dropEarlierKeys(decls []ast.Decl, loc diag.Loc) ([]ast.Decl, diag.Diagnostics) {
	var diags diag.Diagnostics
	last := map[string]*ast.Field{}
	NamedFields(decls, func(name string, f *ast.Field) { last[name] = f })
	kept := KeepFields(decls, func(name string, f *ast.Field) bool {
		if last[name] != f {
			at := loc.Field(name).At(PosOf(f.Pos()))
			diags = append(diags, diag.Warnf(diag.KeyWrittenTwice, at,
				"written again below; PyYAML, which reads this file for MLCube 1.0, keeps that one and "+
					"drops this").WithRelated(PosOf(last[name].Pos()), "written again here"))
			return false
		}
		diags = append(diags, dropEarlierIn(f.Value, loc.Field(name))...)
		return true
	})
	return kept, diags
}

// dropEarlierIn applies dropEarlierKeys to the mappings in a value.
func dropEarlierIn(e ast.Expr, loc diag.Loc) diag.Diagnostics {
	var diags diag.Diagnostics
	switch v := e.(type) {
	case *ast.StructLit:
		v.Elts, diags = dropEarlierKeys(v.Elts, loc)
	case *ast.ListLit:
		for i, el := range v.Elts {
			diags = append(diags, dropEarlierIn(el, loc.Index(i))...)
		}
	}
	return diags
}

// dropLaterKeys removes, from every mapping under decls, each key that
// the same mapping wrote before, keeping its first value (CheckTree has
// said each as an error).
func dropLaterKeys(decls []ast.Decl) []ast.Decl {
	seen := map[string]bool{}
	kept := KeepFields(decls, func(name string, f *ast.Field) bool {
		if seen[name] {
			return false
		}
		seen[name] = true
		dropLaterIn(f.Value)
		return true
	})
	return kept
}

// dropLaterIn applies dropLaterKeys to the mappings in a value.
func dropLaterIn(e ast.Expr) {
	switch v := e.(type) {
	case *ast.StructLit:
		v.Elts = dropLaterKeys(v.Elts)
	case *ast.ListLit:
		for _, el := range v.Elts {
			dropLaterIn(el)
		}
	}
}
