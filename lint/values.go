package lint

import (
	"fmt"
	"strings"

	"github.com/mlcube-compile/mlcube-compile/diag"
)

// giveValues gives -f and --set to every unit that compiles a pipeline
// or invoke file (a cube alone has no params), as values shared by them
// all (compiler.Options.SharedValues). Values with no such unit to take
// them are a usage error.
func giveValues(units []unit, opts Options, paths []string) error {
	if len(opts.Values) == 0 && len(opts.Set) == 0 {
		return nil
	}
	given := 0
	for i := range units {
		if units[i].platformOnly != "" || units[i].opts.Task == "" {
			continue
		}
		units[i].opts.Values, units[i].opts.Set, units[i].opts.SharedValues = opts.Values, opts.Set, true
		given++
	}
	if given == 0 {
		return fmt.Errorf("-f and --set give values to the params of pipeline files, and lint found none under %s",
			strings.Join(paths, ", "))
	}
	return nil
}

// unusedValues merges the units' diagnostics, sorted and without
// duplicates (the same file read by two units is reported once), after
// reading the notes of values a unit's pipeline has no param for: a
// value that every unit given values noted is an error, in the
// compile's words when they are the same for each (one pipeline), else
// in lint's; a value some pipeline took is no problem (nor is one that a
// unit whose pipeline could not be read did not note: its errors say
// why).
func unusedValues(units []unit, results []result) diag.Diagnostics {
	type place struct {
		pos   diag.Pos
		field string
	}
	noted := map[place][]diag.Diagnostic{}
	var order []place
	given := 0
	var all diag.Diagnostics
	for i, r := range results {
		if units[i].opts.SharedValues {
			given++
		}
		seen := map[place]bool{}
		for _, d := range r.Diagnostics {
			if d.Severity != diag.Note || d.Code != diag.UnknownName {
				all = append(all, d)
				continue
			}
			at := place{d.Pos, d.Field}
			if _, ok := noted[at]; !ok {
				order = append(order, at)
			}
			if !seen[at] {
				seen[at] = true
				noted[at] = append(noted[at], d)
			}
		}
	}
	for _, at := range order {
		if len(noted[at]) == given {
			all = append(all, unusedValue(noted[at]))
		}
	}
	return all.Sorted()
}

// unusedValue is the error of a value no pipeline had a param for, from
// the notes of each unit given it: their words when all say the same,
// else lint's, with the first hint one gives.
func unusedValue(notes []diag.Diagnostic) diag.Diagnostic {
	d := notes[0]
	d.Severity = diag.Error
	for _, n := range notes[1:] {
		if n.Message != d.Message {
			d.Message = fmt.Sprintf("no pipeline linted has a param %q: -f and --set give each pipeline the values "+
				"of its own params", d.Field)
			break
		}
	}
	for _, n := range notes {
		if len(d.Fixes) == 0 {
			d.Fixes = n.Fixes
		}
	}
	return d
}
