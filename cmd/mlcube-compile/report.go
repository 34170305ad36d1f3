package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/mlcube-compile/mlcube-compile/diag"
	"github.com/mlcube-compile/mlcube-compile/lint"
)

// note is a choice the command made for the user, such as the platform
// file it read because of where it is: printed before the diagnostics,
// in their form, with the severity "note".
type note struct {
	File, Flag, Message string
	Code                diag.Code
}

// diagnosticFormats are the values of lint's --format and of compile's
// and graph's --error-format, the default first.
var diagnosticFormats = diag.Formats

// checkFormat refuses a format writeDiagnostics does not know; flag names
// the flag it came from.
func checkFormat(flag, format string) error {
	if !slices.Contains(diagnosticFormats, format) {
		return usageError{fmt.Errorf("unknown --%s %q (formats: %s)%s", flag, format, strings.Join(diagnosticFormats, ", "),
			diag.Suggest(format, diagnosticFormats))}
	}
	return nil
}

// writeDiagnostics prints notes, then diagnostics, in format, in the
// order given, as diag.Format prints them, with their details when
// detail is set (--verbose). summary, when set, ends the text and github
// forms.
func writeDiagnostics(w io.Writer, format string, detail bool, notes []note, diags diag.Diagnostics,
	summary string) error {
	all := make(diag.Diagnostics, 0, len(notes)+len(diags))
	for _, n := range notes {
		all = append(all, diag.Diagnostic{Pos: diag.Pos{File: n.File}, Flag: n.Flag, Message: n.Message,
			Severity: diag.Note, Code: n.Code})
	}
	out, err := diag.Format(format, append(all, diags...), detail)
	if err != nil {
		return err
	}
	if summary != "" && format != "json" {
		out = append(out, summary+"\n"...)
	}
	_, err = w.Write(out)
	return err
}

// lintSummary is "3 files, 2 errors, 1 warning", and how many other
// YAML files were skipped: "; 2 other YAML files skipped (--verbose
// names them)".
func lintSummary(report lint.Report) string {
	errs, warns, notes := 0, 0, 0
	for _, d := range report.Diagnostics {
		switch d.Severity {
		case diag.Warning:
			warns++
		case diag.Note:
			notes++
		default:
			errs++
		}
	}
	out := fmt.Sprintf("%s, %s, %s", plural(report.Files, "file"), plural(errs, "error"), plural(warns, "warning"))
	if notes > 0 {
		out += ", " + plural(notes, "note")
	}
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
