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
	Field    string `json:"field"`
	Message  string `json:"message"`
	// Code is a warning's code, which --disable and a disable comment
	// take; empty for the rest.
	Code string `json:"code,omitempty"`
	// Hint says what to do, such as `did you mean "train"?`, where the
	// message has one apart from itself.
	Hint string `json:"hint,omitempty"`
}

// Format prints ds, in the order given, in form (one of Formats): text as
// one String line each, json as one array of Problems, github as
// workflow commands that annotate the files (a note as ::notice).
func Format(form string, ds Diagnostics) ([]byte, error) {
	var b strings.Builder
	switch form {
	case "json":
		problems := []Problem{}
		for _, d := range ds {
			problems = append(problems, Problem{d.Pos.File, d.Pos.Line, d.Pos.Col, d.Severity.String(), d.Field, d.Message, string(d.Code), d.Hint})
		}
		out, err := json.MarshalIndent(problems, "", "  ")
		if err != nil {
			return nil, err
		}
		b.Write(out)
		b.WriteByte('\n')
	case "github":
		for _, d := range ds {
			fmt.Fprintf(&b, "::%s %s::%s\n", githubCommand(d.Severity), githubProperties(d), githubData(d.fieldMessage()))
		}
	default:
		for _, d := range ds {
			b.WriteString(d.String() + "\n")
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

// fieldMessage is "field.path: message", or the message alone, then
// "; " and the hint when there is one, and the code in brackets when there
// is one.
func (d Diagnostic) fieldMessage() string {
	out := d.Message
	if d.Field != "" {
		out = d.Field + ": " + out
	}
	if d.Hint != "" {
		out += "; " + d.Hint
	}
	if d.Code != "" {
		out += " [" + string(d.Code) + "]"
	}
	return out
}

// githubProperties are a workflow command's file, line and col, and a
// title naming the field.
func githubProperties(d Diagnostic) string {
	props := []string{"file=" + GitHubProperty(d.Pos.File)}
	if d.Pos.Line > 0 {
		props = append(props, fmt.Sprintf("line=%d", d.Pos.Line), fmt.Sprintf("col=%d", d.Pos.Col))
	}
	if d.Field != "" {
		props = append(props, "title="+GitHubProperty(d.Field))
	}
	return strings.Join(props, ",")
}

// githubData escapes a workflow command's message, as the Actions runner
// reads it.
var githubData = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace

// GitHubProperty escapes a workflow command's property value.
var GitHubProperty = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace
