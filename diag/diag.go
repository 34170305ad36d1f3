package diag

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Severity tells an error from a warning, and both from a note: a choice
// the command made for the user, such as the platform file it read.
type Severity int

// The severities of a Diagnostic.
const (
	Error Severity = iota
	Warning
	Note
)

// Pos is a place in a spec file. Line and Col are 1-based; zero means the
// place is the file as a whole. Col counts characters (Unicode code
// points, a tab one), as the YAML parser counts them, not bytes.
type Pos struct {
	File      string
	Line, Col int
}

func (p Pos) String() string {
	if p.Line == 0 {
		return p.File
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// Diagnostic is one problem found in a spec: where, which field, and what.
// Its Code names its kind: docs/troubleshooting.md explains each, and
// users silence a warning by it.
type Diagnostic struct {
	Pos Pos
	// Flag is the command-line flag the problem comes from (its value, or
	// the file it names), "" for a spec's; text prints it where a file's
	// place goes when there is none, else before the field.
	Flag string `json:",omitempty"`
	// Field is Path spelled, as text and JSON print it: FieldOf(Path).
	// Errorf, Warnf and Notef spell it from their Loc's path; a
	// diagnostic made without a Loc may have a Field and no Path.
	Field string
	// Path is the field the problem is at, as the names and indexes the
	// checker walked to it: the source of Field; nil for a diagnostic
	// made without a Loc.
	Path     []Elem `json:",omitempty"`
	Message  string
	Severity Severity
	Code     Code
	// Engine names the engine whose emit found the problem (argo, tekton,
	// job); empty for the compiler's own. Text prints it before the
	// message, JSON as a field of its own.
	Engine string `json:",omitempty"`
	// Detail says why, with the cluster's or a version's facts behind the
	// message, which says one fact: text prints it with --verbose, JSON
	// always.
	Detail string `json:",omitempty"`
	// Fixes say what to do, apart from the message, each as advice and,
	// where it is a change of text (did you mean "x"?), the edits that
	// make it: text prints the advice after the message, JSON the fixes
	// as data.
	Fixes []Fix `json:",omitempty"`
	// Related are other places the message is about, such as where a
	// key was first written: text prints each as a note after it.
	Related []Related `json:",omitempty"`
}

// Related is a place a diagnostic is about besides its own, and what it
// is there.
type Related struct {
	Pos     Pos
	Message string
}

// Errorf is an error of kind code about the value at.
func Errorf(code Code, at Loc, format string, args ...any) Diagnostic {
	return Diagnostic{Pos: at.Pos(), Flag: at.flag, Field: FieldOf(at.elems), Path: at.elems,
		Message: fmt.Sprintf(format, args...), Code: code}
}

// WithRelated is d with another place it is about, and what it is there.
func (d Diagnostic) WithRelated(pos Pos, message string) Diagnostic {
	d.Related = append(append([]Related(nil), d.Related...), Related{pos, message})
	return d
}

// Origin is where a problem comes from.
type Origin string

// The origins: a spec file, the command line, or the command itself.
const (
	FromFile     Origin = "file"
	FromFlag     Origin = "flag"
	FromInternal Origin = "internal"
)

// Origin says where the problem comes from: the command itself for an
// Internal failure, the command line for a problem with a Flag, else a
// spec file.
func (d Diagnostic) Origin() Origin {
	switch {
	case d.Code == Internal:
		return FromInternal
	case d.Flag != "":
		return FromFlag
	}
	return FromFile
}

// same reports whether d and e say the same thing at the same place.
func (d Diagnostic) same(e Diagnostic) bool {
	return d.Pos == e.Pos && d.Flag == e.Flag && d.Field == e.Field && d.Message == e.Message &&
		d.Severity == e.Severity &&
		d.Code == e.Code && d.Engine == e.Engine && d.Detail == e.Detail && slices.EqualFunc(d.Fixes, e.Fixes, Fix.equal) &&
		slices.Equal(d.Path, e.Path) && slices.Equal(d.Related, e.Related)
}

// WithDetail is d with the detail format and args say as its Detail.
func (d Diagnostic) WithDetail(format string, args ...any) Diagnostic {
	d.Detail = fmt.Sprintf(format, args...)
	return d
}

// A Fix is one way to mend a problem: what to do, and, where it is a
// change of text, the edits that make it, which an editor can apply.
type Fix struct {
	Message string
	Edits   []Edit `json:",omitempty"`
}

// An Edit writes New in place of Old, which is written at Pos (quoted or
// not, as YAML allows).
type Edit struct {
	Pos      Pos
	Old, New string
}

func (f Fix) equal(g Fix) bool { return f.Message == g.Message && slices.Equal(f.Edits, g.Edits) }

// WithFix is d with a fix: message, the advice, made by edits; an empty
// message adds none.
func (d Diagnostic) WithFix(message string, edits ...Edit) Diagnostic {
	if message != "" {
		d.Fixes = append(slices.Clip(d.Fixes), Fix{Message: message, Edits: edits})
	}
	return d
}

// WithSuggestion is d with the fix for an unknown name written at d's
// place: `did you mean "train"?` and the edit that writes it, when one of
// candidates is near enough to name (Nearest); else d as it is.
func (d Diagnostic) WithSuggestion(name string, candidates []string) Diagnostic {
	near := Nearest(name, candidates)
	if near == "" {
		return d
	}
	return d.WithFix(fmt.Sprintf("did you mean %q?", near), Edit{Pos: d.Pos, Old: name, New: near})
}

// Warnf is a warning of kind code about the value at.
func Warnf(code Code, at Loc, format string, args ...any) Diagnostic {
	d := Errorf(code, at, format, args...)
	d.Severity = Warning
	return d
}

// Notef makes a note at the field at: a fact the user may want, which
// asks for no change and never fails a run, even with --strict.
func Notef(code Code, at Loc, format string, args ...any) Diagnostic {
	d := Errorf(code, at, format, args...)
	d.Severity = Note
	return d
}

// String prints the diagnostic as file:line:col: [warning: |note: ]
// field.path: message, and the code in brackets when it has one.
func (d Diagnostic) String() string {
	var b strings.Builder
	b.WriteString(d.where())
	b.WriteString(": ")
	if d.Severity != Error {
		b.WriteString(d.Severity.String() + ": ")
	}
	b.WriteString(d.fieldMessage())
	return b.String()
}

// Diagnostics is every problem found in one compilation. Functions that
// check something return theirs; callers append them to their own. As an
// error it reports only its errors.
type Diagnostics []Diagnostic

// HasErrors reports whether any diagnostic is an error.
func (ds Diagnostics) HasErrors() bool {
	for _, d := range ds {
		if d.Severity == Error {
			return true
		}
	}
	return false
}

// Sorted returns the diagnostics ordered by file, line, column, field and
// message, without duplicates.
func (ds Diagnostics) Sorted() Diagnostics {
	out := append(Diagnostics(nil), ds...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Pos.File != b.Pos.File {
			return a.Pos.File < b.Pos.File
		}
		if a.Pos.Line != b.Pos.Line {
			return a.Pos.Line < b.Pos.Line
		}
		if a.Pos.Col != b.Pos.Col {
			return a.Pos.Col < b.Pos.Col
		}
		if a.Field != b.Field {
			return a.Field < b.Field
		}
		return a.engineMessage() < b.engineMessage()
	})
	uniq := out[:0]
	for i, d := range out {
		if i == 0 || !d.same(out[i-1]) {
			uniq = append(uniq, d)
		}
	}
	return uniq
}

// Errors returns only the errors, sorted.
func (ds Diagnostics) Errors() Diagnostics { return ds.only(Error) }

// Warnings returns only the warnings, sorted.
func (ds Diagnostics) Warnings() Diagnostics { return ds.only(Warning) }

func (ds Diagnostics) only(sev Severity) Diagnostics {
	var out Diagnostics
	for _, d := range ds.Sorted() {
		if d.Severity == sev {
			out = append(out, d)
		}
	}
	return out
}

// Error prints every error, sorted, one a line: Diagnostics with errors
// travel to where they are printed as an error.
func (ds Diagnostics) Error() string {
	var lines []string
	for _, d := range ds.Errors() {
		lines = append(lines, d.String())
	}
	return strings.Join(lines, "\n")
}
