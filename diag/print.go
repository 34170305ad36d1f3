package diag

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Formats are the forms Format prints, the default first: the values of
// lint's --format and of compile's and graph's --error-format.
var Formats = []string{"text", "json", "github"}

// Problem is one diagnostic as the json form prints it. The field names
// and their meaning are part of the interface, documented in docs/lint.md.
type Problem struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Column   int    `json:"column"`
	Severity string `json:"severity"`
	// Flag is the command-line flag the problem comes from; absent for a
	// spec's.
	Flag    string `json:"flag,omitempty"`
	Field   string `json:"field"`
	Message string `json:"message"`
	// Detail says why, with the facts behind the message; absent where
	// the message says it all.
	Detail string `json:"detail,omitempty"`
	// Code names the kind of problem (docs/troubleshooting.md has a
	// section for each); a warning's is what --disable and a disable
	// comment take. Empty only for a note.
	Code string `json:"code,omitempty"`
	// Hint says what to do, such as `did you mean "train"?`, where the
	// message has one apart from itself: the advice of Fixes, joined.
	Hint string `json:"hint,omitempty"`
	// Fixes are the ways to mend the problem, each its advice and the
	// edits that make it, where it is a change of text.
	Fixes []FixProblem `json:"fixes,omitempty"`
	// Engine names the engine whose emit found the problem (argo,
	// tekton, job); absent for the compiler's own.
	Engine string `json:"engine,omitempty"`
	// Origin is file, flag or internal: Diagnostic.Origin.
	Origin string `json:"origin"`
	// Path is Field as a list of names (strings) and list indexes
	// (numbers); absent where the problem has no field path.
	Path []any `json:"path,omitempty"`
	// Related are other places the problem is about.
	Related []RelatedProblem `json:"related,omitempty"`
}

// RelatedProblem is a Related place as the json form prints it.
type RelatedProblem struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Message string `json:"message"`
}

// FixProblem is a Fix as the json form prints it.
type FixProblem struct {
	Message string        `json:"message"`
	Edits   []EditProblem `json:"edits,omitempty"`
}

// EditProblem is an Edit as the json form prints it: at file, line and
// column, old is written; new goes in its place.
type EditProblem struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
	Old    string `json:"old"`
	New    string `json:"new"`
}

// problem is d as the json form prints it.
func problem(d Diagnostic) Problem {
	p := Problem{File: d.Pos.File, Line: d.Pos.Line, Column: d.Pos.Col, Severity: d.Severity.String(), Field: d.Field,
		Message: d.Message, Detail: d.Detail, Code: string(d.Code), Hint: d.advice(), Engine: d.Engine,
		Origin: string(d.Origin()), Flag: d.Flag}
	for _, f := range d.Fixes {
		fp := FixProblem{Message: f.Message}
		for _, e := range f.Edits {
			fp.Edits = append(fp.Edits, EditProblem{e.Pos.File, e.Pos.Line, e.Pos.Col, e.Old, e.New})
		}
		p.Fixes = append(p.Fixes, fp)
	}
	for _, e := range d.Path {
		if e.Item {
			p.Path = append(p.Path, e.Index)
		} else {
			p.Path = append(p.Path, e.Name)
		}
	}
	for _, r := range d.Related {
		p.Related = append(p.Related, RelatedProblem{r.Pos.File, r.Pos.Line, r.Pos.Col, r.Message})
	}
	return p
}

// Format prints ds, in the order given, in form (one of Formats): text as
// one String line each, and with detail each Detail indented on the line
// after it; json as one array of Problems, with their details; github as
// one workflow command a problem that annotates its file (a note as
// ::notice), its detail and related places lines of its message.
func Format(form string, ds Diagnostics, detail bool) ([]byte, error) {
	var b strings.Builder
	switch form {
	case "json":
		problems := []Problem{}
		for _, d := range ds {
			problems = append(problems, problem(d))
		}
		out, err := json.MarshalIndent(problems, "", "  ")
		if err != nil {
			return nil, err
		}
		b.Write(out)
		b.WriteByte('\n')
	case "github":
		// One annotation a problem: its related places are lines of its
		// message, not annotations of their own.
		for _, d := range ds {
			message := d.fieldMessage()
			if d.Detail != "" {
				message += "\n" + d.Detail
			}
			for _, r := range d.relatedNotes() {
				message += "\n" + r.String()
			}
			fmt.Fprintf(&b, "::%s %s::%s\n", githubCommand(d.Severity), githubProperties(d), githubData(message))
		}
	default:
		for _, d := range ds {
			b.WriteString(d.String() + "\n")
			if detail && d.Detail != "" {
				b.WriteString("    " + d.Detail + "\n")
			}
			for _, r := range d.relatedNotes() {
				b.WriteString(r.String() + "\n")
			}
		}
	}
	return []byte(b.String()), nil
}

// String is the severity's name: error, warning or note.
func (s Severity) String() string {
	switch s {
	case Warning:
		return "warning"
	case Note:
		return "note"
	}
	return "error"
}

// githubCommand is the workflow command of a severity.
func githubCommand(s Severity) string {
	if s == Note {
		return "notice"
	}
	return s.String()
}

// where is where a diagnostic's line begins: its place in a file, or
// the flag it comes from when it has no file.
func (d Diagnostic) where() string {
	if d.Pos.File == "" && d.Flag != "" {
		return d.Flag
	}
	return d.Pos.String()
}

// fieldMessage is "flag: field.path: engine: message", without the flag
// (when where shows it or there is none), the field or the engine where
// there is none, then "; " and the fixes' advice when there are fixes,
// and the code in brackets when there is one.
func (d Diagnostic) fieldMessage() string {
	out := d.engineMessage()
	if d.Field != "" {
		out = d.Field + ": " + out
	}
	if d.Flag != "" && d.Pos.File != "" {
		out = d.Flag + ": " + out
	}
	if advice := d.advice(); advice != "" {
		out += "; " + advice
	}
	if d.Code != "" {
		out += " [" + string(d.Code) + "]"
	}
	return out
}

// advice is what d's fixes say to do, joined.
func (d Diagnostic) advice() string {
	var out []string
	for _, f := range d.Fixes {
		out = append(out, f.Message)
	}
	return strings.Join(out, "; ")
}

// engineMessage is the message, after "engine: " when an engine found it.
func (d Diagnostic) engineMessage() string {
	if d.Engine != "" {
		return d.Engine + ": " + d.Message
	}
	return d.Message
}

// relatedNotes are d's Related places as notes on its field, printed
// after it.
func (d Diagnostic) relatedNotes() []Diagnostic {
	var out []Diagnostic
	for _, r := range d.Related {
		out = append(out, Diagnostic{Pos: r.Pos, Flag: d.Flag, Field: d.Field, Message: r.Message, Severity: Note})
	}
	return out
}

// githubProperties are a workflow command's file, line and col, and a
// title naming the field.
func githubProperties(d Diagnostic) string {
	var props []string
	if d.Pos.File != "" {
		props = append(props, "file="+GitHubProperty(d.Pos.File))
	}
	if d.Pos.Line > 0 {
		props = append(props, fmt.Sprintf("line=%d", d.Pos.Line), fmt.Sprintf("col=%d", d.Pos.Col))
	}
	if title := strings.Trim(d.Flag+" "+d.Field, " "); title != "" {
		props = append(props, "title="+GitHubProperty(title))
	}
	return strings.Join(props, ",")
}

// githubData escapes a workflow command's message, as the Actions runner
// reads it.
var githubData = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace

// GitHubProperty escapes a workflow command's property value.
var GitHubProperty = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace
