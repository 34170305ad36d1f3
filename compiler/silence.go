package compiler

import (
	"io/fs"
	"slices"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/source"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// Silence returns ds without the warnings that disabled names (--disable)
// or that a disable comment in their spec file silences, read from fsys
// (Disk when nil): "# mlcube-compile: disable CODE" at the warning's line
// or alone on the line above it, "# mlcube-compile: disable-file CODE"
// anywhere in the file. A comment that names no code is itself warned
// about, once. Errors are never silenced.
func Silence(fsys fs.FS, ds diag.Diagnostics, disabled []diag.Code) diag.Diagnostics {
	files := source.New(fsys)
	read := map[string]source.Disabled{}
	var out diag.Diagnostics
	for _, d := range ds {
		if d.Severity != diag.Warning || d.Code == "" {
			out = append(out, d)
			continue
		}
		if slices.Contains(disabled, d.Code) {
			continue
		}
		dis, ok := read[d.Pos.File]
		if !ok && d.Pos.File != "" {
			dis = files.ReadDisabled(d.Pos.File)
			read[d.Pos.File] = dis
			out = append(out, dis.Unknown...)
		}
		if dis.File[d.Code] || dis.Lines[d.Pos.Line][d.Code] {
			continue
		}
		out = append(out, d)
	}
	return out
}
