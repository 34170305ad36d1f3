package compiler

import (
	"cuelang.org/go/cue/ast"

	"github.com/mlcube-compile/mlcube-compile/schema"
)

// decodePlatform reads a platform file.
func decodePlatform(s *schema.Schema, f *ast.File, diags *Diagnostics) (*platformSpec, *document) {
	doc, ok := checkDocument(s, f, schema.Platform, diags)
	if !ok {
		return nil, nil
	}
	p := &platformSpec{}
	if err := doc.data.Decode(p); err != nil {
		diags.errorf(Pos{File: doc.file}, "", "decoding: %v", err)
		return nil, nil
	}
	p.File, p.at = doc.file, doc.at
	return p, doc
}
