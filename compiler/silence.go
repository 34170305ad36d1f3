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
// about (MLC105, which may be silenced too) when its file has a warning.
// Errors are never silenced.
func Silence(fsys fs.FS, ds diag.Diagnostics, disabled []diag.Code) diag.Diagnostics {
	files := source.New(fsys)
	read := map[string]source.Disabled{}
	var unknown diag.Diagnostics
	for _, d := range ds {
		if _, ok := read[d.Pos.File]; !ok && d.Severity == diag.Warning && d.Code != "" && d.Pos.File != "" {
			read[d.Pos.File] = files.ReadDisabled(d.Pos.File)
			unknown = append(unknown, read[d.Pos.File].Unknown...)
		}
	}
	var out diag.Diagnostics
	for _, d := range append(slices.Clone(ds), unknown...) {
		if d.Severity != diag.Warning || d.Code == "" {
			out = append(out, d)
			continue
		}
		dis := read[d.Pos.File]
		if slices.Contains(disabled, d.Code) || dis.File[d.Code] || dis.Lines[d.Pos.Line][d.Code] {
			continue
		}
		out = append(out, d)
	}
	return out
}
