package source

import (
	"strings"

	"cuelang.org/go/cue/ast"
)

// TopLevelString returns the string value of a top-level key of a parsed
// file, which is how spec kinds are told apart by content.
func TopLevelString(f *ast.File, key string) string {
	value := ""
	NamedFields(f.Decls, func(name string, field *ast.Field) {
		if lit, ok := field.Value.(*ast.BasicLit); ok && name == key {
			value = strings.Trim(lit.Value, `"'`)
		}
	})
	return value
}

// HasTopLevel reports whether key is a top-level key of f.
func HasTopLevel(f *ast.File, key string) bool {
	found := false
	NamedFields(f.Decls, func(name string, _ *ast.Field) { found = found || name == key })
	return found
}

// TopLevelMapping reports whether key is a top-level key whose value is a
// mapping, as steps: and tasks: are; other tools' files (a CI system's
// steps: list) are not ours.
func TopLevelMapping(f *ast.File, key string) bool {
	found := false
	NamedFields(f.Decls, func(name string, field *ast.Field) {
		_, isMap := field.Value.(*ast.StructLit)
		found = found || (name == key && isMap)
	})
	return found
}
