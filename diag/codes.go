package diag

import "slices"

// Code names one kind of problem, stably across releases: the section
// of docs/troubleshooting.md that explains it and, for a warning or a
// note, what lint --disable takes and a "# mlcube-compile: disable CODE"
// comment in a spec names. Every code is a row of codeTable, by topic:
// MLC1xx reading the files, 2xx paths, params and names, 3xx resources
// and docker flags, 4xx distributed steps, 5xx storage, 6xx one engine's
// (Argo 60x, Tekton 62x, Job 64x), 7xx the command; an error's from 50
// up in its hundred.
type Code string

// CodeDoc is a row of the table of codes: a code, how bad it is, what
// docs/troubleshooting.md says of it, and its old codes.
type CodeDoc struct {
	Code Code
	// Severity is how the code is raised: an Error, a Warning, or a Note,
	// a fact that asks for no change (docs/troubleshooting.md titles it
	// "(a note)"). Where one problem is found by each of several
	// compilations, an error's may be given as a note (MLC250 of a values
	// file that several read).
	Severity Severity
	// Title names the problem, as its message begins or means.
	Title string
	// Fix says what to do about it, or what a note means, in Markdown.
	Fix string
	// Aliases are the codes the problem had before it had one on every
	// engine, which --disable and disable comments still take; Fix names
	// them too.
	Aliases []Code
}

// Codes are the warnings' and notes' rows, in the order of their part
// of docs/troubleshooting.md.
func Codes() []CodeDoc { return rows(func(d CodeDoc) bool { return d.Severity != Error }) }

// ErrorCodes are the errors' rows, in the order of their part of
// docs/troubleshooting.md.
func ErrorCodes() []CodeDoc { return rows(func(d CodeDoc) bool { return d.Severity == Error }) }

// rows are the rows of codeTable that keep says to keep, in its order.
func rows(keep func(CodeDoc) bool) []CodeDoc {
	var out []CodeDoc
	for _, d := range codeTable {
		if keep(d) {
			d.Aliases = slices.Clone(d.Aliases)
			out = append(out, d)
		}
	}
	return out
}

// byCode is codeTable's row of each code, and of each alias.
var byCode = func() map[Code]CodeDoc {
	m := map[Code]CodeDoc{}
	for _, d := range codeTable {
		m[d.Code] = d
		for _, a := range d.Aliases {
			m[a] = d
		}
	}
	return m
}()

// Problem is the code of the problem c names: c, or the code an alias
// stands for.
func (c Code) Problem() Code {
	if d, ok := byCode[c]; ok {
		return d.Code
	}
	return c
}

// AliasesOf are the old codes of c's problem, sorted.
func AliasesOf(c Code) []Code {
	d, ok := byCode[c]
	if !ok || d.Code != c {
		return nil // c is an alias, or no code
	}
	out := slices.Clone(d.Aliases)
	slices.Sort(out)
	return out
}

// Known reports whether c is a warning's or a note's code, or an alias of
// one: what --disable and disable comments take.
func Known(c Code) bool {
	d, ok := byCode[c]
	return ok && d.Severity != Error
}

// IsError reports whether c is an error's code, which no --disable or
// disable comment silences.
func IsError(c Code) bool {
	d, ok := byCode[c]
	return ok && d.Severity == Error && d.Code == c
}

// CodeNames are the warnings' and notes' codes as strings, for
// suggestions.
func CodeNames() []string {
	var out []string
	for _, d := range Codes() {
		out = append(out, string(d.Code))
	}
	return out
}

// SaysSettingUnused says that a warning of code c is about a setting of
// the platform file that the compiled run never uses: lint keeps one only
// when every compilation that reads the file gives it.
func (c Code) SaysSettingUnused() bool {
	return slices.Contains([]Code{GPUSettingUnused, CPUPlacementUnused, PlatformSettingUnused, ObjectStoreUnused,
		DataClaimUnused}, c)
}
