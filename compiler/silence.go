package compiler

import (
	"io/fs"
	"slices"
	"sort"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/source"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// Silence returns ds without the warnings that disabled names (--disable)
// or that a disable comment in their spec file silences, read from fsys
// (Disk when nil): "# mlcube-compile: disable CODE" on a line of the node
// the warning is placed in (the mapping entry or list item at its
// field), or alone on the line above one, "# mlcube-compile: disable-file
// CODE" anywhere in the file. A comment that names no code is itself
// warned about (MLC105, which may be silenced too) when its file has a
// warning. A problem's old codes (diag.Code.Problem) silence it too.
// Errors are never silenced.
func Silence(fsys fs.FS, ds diag.Diagnostics, disabled []diag.Code) diag.Diagnostics {
	return newSilencer(source.New(fsys), disabled).silence(ds)
}

// DisableComment is one code of a disable comment, where it is written.
type DisableComment = source.Comment

// Silenced is what silencing one compilation found: every file it read,
// and the disable comments that silenced a warning.
type Silenced struct {
	Files []string         `json:"files,omitempty"`
	Used  []DisableComment `json:"used,omitempty"`
}

// silencer silences the warnings of one compilation, as Silence does,
// keeping which disable comments silenced something, so that those that
// silence nothing are said (Unused).
type silencer struct {
	files    *source.Files
	disabled []diag.Code
	read     map[string]source.Disabled
	used     map[DisableComment]bool
}

// newSilencer silences warnings by the codes disabled (--disable) and the
// disable comments of their files, read through files.
func newSilencer(files *source.Files, disabled []diag.Code) *silencer {
	return &silencer{files: files, disabled: disabled, read: map[string]source.Disabled{},
		used: map[DisableComment]bool{}}
}

// disabledIn is the disable comments of file, read once.
func (s *silencer) disabledIn(file string) (source.Disabled, bool) {
	dis, ok := s.read[file]
	if !ok {
		dis = s.files.ReadDisabled(file)
		s.read[file] = dis
	}
	return dis, ok
}

// silence returns ds without the warnings and notes --disable or a
// disable comment silences (see Silence), noting each comment that
// silenced one. Errors are never silenced.
func (s *silencer) silence(ds diag.Diagnostics) diag.Diagnostics {
	var unknown diag.Diagnostics
	for _, d := range ds {
		if d.Severity != diag.Error && d.Code != "" && d.Pos.File != "" {
			if dis, seen := s.disabledIn(d.Pos.File); !seen {
				unknown = append(unknown, dis.Unknown...)
			}
		}
	}
	var out diag.Diagnostics
	for _, d := range append(slices.Clone(ds), unknown...) {
		if d.Severity == diag.Error || d.Code == "" {
			out = append(out, d)
			continue
		}
		silenced := false
		if d.Pos.File != "" {
			dis, _ := s.disabledIn(d.Pos.File)
			for _, c := range dis.Comments {
				if c.Code.Problem() == d.Code && dis.Silences(c, d.Pos, d.Field) {
					s.used[c] = true
					silenced = true
				}
			}
		}
		if !silenced && !slices.ContainsFunc(s.disabled, func(c diag.Code) bool { return c.Problem() == d.Code }) {
			out = append(out, d)
		}
	}
	return out
}

// record is what s found: the files the compilation read, and the
// comments that silenced something.
func (s *silencer) record() Silenced {
	var used []DisableComment
	for c := range s.used {
		used = append(used, c)
	}
	sort.Slice(used, func(i, j int) bool {
		a, b := used[i], used[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
	return Silenced{Files: s.files.Read(), Used: used}
}

// unused is the warning (MLC107) of each disable comment in the files
// the compilation read that silenced nothing, silenced in turn (Unused
// as any warning). skip says which codes not to judge.
func (s *silencer) unused(skip func(diag.Code) bool) diag.Diagnostics {
	return unusedComments(s.files, []Silenced{s.record()}, s.disabled, skip)
}

// UnusedComments warns (MLC107) of every disable comment in the files
// of records that silenced nothing in any of them: the compilations of
// one lint (or the one of a compile), each engine's warnings included,
// so that a comment for a code only one engine raises is used when that
// engine raised it. skip says which codes not to judge (those of an
// engine or the command that the compilations did not run). The
// warnings go through --disable (disabled) and the comments, as any.
func UnusedComments(fsys fs.FS, records []Silenced, disabled []diag.Code, skip func(diag.Code) bool) diag.Diagnostics {
	return unusedComments(source.New(fsys), records, disabled, skip)
}

func unusedComments(files *source.Files, records []Silenced, disabled []diag.Code,
	skip func(diag.Code) bool) diag.Diagnostics {
	used := map[DisableComment]bool{}
	var paths []string
	for _, r := range records {
		for _, c := range r.Used {
			used[c] = true
		}
		for _, f := range r.Files {
			if !slices.Contains(paths, f) {
				paths = append(paths, f)
			}
		}
	}
	sort.Strings(paths)
	var out diag.Diagnostics
	for _, path := range paths {
		for _, c := range files.ReadDisabled(path).Comments {
			if used[c] || skip != nil && skip(c.Code) {
				continue
			}
			out = append(out, unusedWarning(c))
		}
	}
	return newSilencer(files, disabled).silence(out)
}

// unusedWarning is MLC107 for c.
func unusedWarning(c DisableComment) diag.Diagnostic {
	at := diag.At(diag.Pos{File: c.File, Line: c.Line, Col: c.Col}).Field("mlcube-compile")
	if c.WholeFile {
		return diag.Warnf(diag.DisableUnused, at,
			"disable-file %s silences nothing: no %s warning is reported in this file", c.Code, c.Code).
			WithFix("remove the comment")
	}
	return diag.Warnf(diag.DisableUnused, at,
		"disable %s silences nothing: no %s warning is reported at this line or in the node it is on", c.Code, c.Code).
		WithFix("remove the comment, or move it onto a line of the node the warning names")
}

// EngineCode and CommandCode are the codes a compilation may leave
// unjudged: an engine's (MLC6xx), which a compile for one backend raises
// for that one only, and the command's (MLC7xx), which depend on its
// flags and which lint does not raise.
func EngineCode(c diag.Code) bool { return len(c) == 6 && c[3] == '6' }

// CommandCode: see EngineCode.
func CommandCode(c diag.Code) bool { return len(c) == 6 && c[3] == '7' }
