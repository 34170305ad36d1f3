package spec

import (
	"slices"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/source"
	"github.com/mlcube-compile/mlcube-compile/diag"
	"github.com/mlcube-compile/mlcube-compile/schema"
)

// IsPlatform reports whether a file, named for nothing, is a platform
// file: one that passes the platform schema. Many tools' YAML has keys
// such as image: or namespace:, so only a file that is wholly a platform
// file is taken for one; name it platform.yaml, or use --platform, to have
// its mistakes reported.
func IsPlatform(f *ast.File) bool {
	s, err := schema.Load()
	if err != nil {
		return false
	}
	var diags diag.Diagnostics
	s.Do(func(sc *schema.Context) { _, diags = checkDocument(sc, f, schema.Platform) })
	return !diags.HasErrors()
}

// PlatformKeys are the keys of a platform file that hold a setting, by
// their dotted paths (storage.pvc, gpu.nodeSelector): every field of the
// platform schema that is no mapping of fields of its own.
func PlatformKeys() []string {
	s, err := schema.Load()
	if err != nil {
		return nil
	}
	var keys []string
	var walk func(sc *schema.Context, path []cue.Selector, prefix string)
	walk = func(sc *schema.Context, path []cue.Selector, prefix string) {
		for _, name := range schemaFields(sc, schema.Platform, path) {
			sub := append(slices.Clip(path), cue.Str(name))
			if len(schemaFields(sc, schema.Platform, sub)) == 0 {
				keys = append(keys, prefix+name)
				continue
			}
			walk(sc, sub, prefix+name+".")
		}
	}
	s.Do(func(sc *schema.Context) { walk(sc, nil, "") })
	return keys
}

// PlatformFields are the top-level keys of a platform file.
func PlatformFields() []string {
	s, err := schema.Load()
	if err != nil {
		return nil
	}
	var fields []string
	s.Do(func(sc *schema.Context) { fields = schemaFields(sc, schema.Platform, nil) })
	return fields
}

// CheckPlatform checks a platform file that no cube or pipeline beside it
// is compiled with: its schema and what decoding it checks.
func CheckPlatform(files *source.Files, path string) diag.Diagnostics {
	s, err := schema.Load()
	if err != nil {
		return diag.Diagnostics{diag.Errorf(diag.Internal, diag.At(diag.Pos{File: path}).Field("schema"), "%v", err)}
	}
	var diags diag.Diagnostics
	s.Do(func(sc *schema.Context) {
		l := newLoader(sc, files)
		l.platform(path)
		diags = l.diags
	})
	return diags.Sorted()
}
