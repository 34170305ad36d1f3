package spec

import (
	"cuelang.org/go/cue/ast"

	"github.com/mlcube-compile/mlcube-compile/diag"
	"github.com/mlcube-compile/mlcube-compile/schema"
)

// decodePlatform reads a platform file; nil after a problem.
func decodePlatform(sc *schema.Context, f *ast.File) (*Platform, diag.Diagnostics) {
	doc, diags := checkDocument(sc, f, schema.Platform)
	if !doc.usable {
		return nil, diags
	}
	p := &Platform{}
	if err := doc.data.Decode(p); err != nil {
		return nil, append(diags, diag.Errorf(diag.Internal, diag.At(diag.Pos{File: doc.file}), "decoding: %v", err))
	}
	p.File, p.Loc, p.Cut = doc.file, doc.top(), doc.cut
	return p, diags
}
