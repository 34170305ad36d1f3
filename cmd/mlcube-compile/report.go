package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/mlcube-compile/mlcube-compile/diag"
	"github.com/mlcube-compile/mlcube-compile/lint"
)

// problem is one entry of a JSON report. The field names and
// their meaning are part of the interface, documented in docs/lint.md.
type problem struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Column   int    `json:"column"`
	Severity string `json:"severity"`
	Field    string `json:"field"`
	Message  string `json:"message"`
}

// note is a choice the command made for the user, such as the platform
// file it read because of where it is: printed before the diagnostics,
// in their form, with the severity "note".
type note struct {
	File, Field, Message string
}

func severityName(s diag.Severity) string {
	if s == diag.Warning {
		return "warning"
	}
	return "error"
}

// diagnosticFormats are the values of lint's --format and of compile's
// and graph's --error-format, the default first.
var diagnosticFormats = []string{"text", "json", "github"}

// checkFormat refuses a format writeDiagnostics does not know; flag names
// the flag it came from.
func checkFormat(flag, format string) error {
	if !slices.Contains(diagnosticFormats, format) {
		return usageError{fmt.Errorf("unknown --%s %q (formats: %s)%s", flag, format, strings.Join(diagnosticFormats, ", "), diag.Suggest(format, diagnosticFormats))}
	}
	return nil
}

// writeDiagnostics prints notes, then diagnostics, in format, in the
// order given: text as file:line:col: [warning: ]field: message lines (a
// note as file: note: field: message), json as one array of problems,
// github as workflow commands that annotate the files. summary, when
// set, ends the text and github forms.
func writeDiagnostics(w io.Writer, format string, notes []note, diags diag.Diagnostics, summary string) error {
	var b strings.Builder
	switch format {
	case "json":
		problems := []problem{}
		for _, n := range notes {
			problems = append(problems, problem{File: n.File, Severity: "note", Field: n.Field, Message: n.Message})
		}
		for _, d := range diags {
			problems = append(problems, problem{d.Pos.File, d.Pos.Line, d.Pos.Col, severityName(d.Severity), d.Field, d.Message})
		}
		out, err := json.MarshalIndent(problems, "", "  ")
		if err != nil {
			return err
		}
		b.Write(out)
		b.WriteByte('\n')
		summary = ""
	case "github":
		for _, n := range notes {
			fmt.Fprintf(&b, "::notice file=%s,title=%s::%s\n", githubProperty(n.File), githubProperty(n.Field), githubData(n.Field+": "+n.Message))
		}
		for _, d := range diags {
			fmt.Fprintf(&b, "::%s %s::%s\n", severityName(d.Severity), githubProperties(d), githubData(fieldMessage(d)))
		}
	default:
		for _, n := range notes {
			fmt.Fprintf(&b, "%s: note: %s: %s\n", n.File, n.Field, n.Message)
		}
		for _, d := range diags {
			b.WriteString(d.String() + "\n")
		}
	}
	if summary != "" {
		b.WriteString(summary + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// fieldMessage is "field.path: message", or the message alone.
func fieldMessage(d diag.Diagnostic) string {
	if d.Field == "" {
		return d.Message
	}
	return d.Field + ": " + d.Message
}

// lintSummary is "3 files, 2 errors, 1 warning", and how many other
// YAML files were skipped: "; 2 other YAML files skipped (--verbose
// names them)".
func lintSummary(report lint.Report) string {
	errs, warns := 0, 0
	for _, d := range report.Diagnostics {
		if d.Severity == diag.Warning {
			warns++
		} else {
			errs++
		}
	}
	out := fmt.Sprintf("%s, %s, %s", plural(report.Files, "file"), plural(errs, "error"), plural(warns, "warning"))
	switch n := len(report.Skipped); {
	case n == 1:
		out += "; 1 other YAML file skipped (--verbose names it)"
	case n > 1:
		out += fmt.Sprintf("; %d other YAML files skipped (--verbose names them)", n)
	}
	return out
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// githubProperties are a workflow command's file, line and col, and a
// title naming the field.
func githubProperties(d diag.Diagnostic) string {
	props := []string{"file=" + githubProperty(d.Pos.File)}
	if d.Pos.Line > 0 {
		props = append(props, fmt.Sprintf("line=%d", d.Pos.Line), fmt.Sprintf("col=%d", d.Pos.Col))
	}
	if d.Field != "" {
		props = append(props, "title="+githubProperty(d.Field))
	}
	return strings.Join(props, ",")
}

// githubData escapes a workflow command's message, as the Actions runner
// reads it.
var githubData = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace

// githubProperty escapes a workflow command's property value.
var githubProperty = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace
