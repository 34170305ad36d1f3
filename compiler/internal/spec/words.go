package spec

import (
	"fmt"
	"regexp"
	"strings"

	"cuelang.org/go/cue"

	"github.com/mlcube-compile/mlcube-compile/schema"
)

// The schema's refusals in words a user reads: never CUE's own
// (TestEveryRefusalInWords).

// otherSide returns the side of a conflict that came from the schema, in
// words: a whole struct of the schema reads as "a mapping", a kind as a
// YAML file writes it, a pattern as its @help says it.
func (d *document) otherSide(sc *schema.Context, path cue.Path, args []any) string {
	got := fmt.Sprint(d.data.LookupPath(path))
	want := fmt.Sprint(args[0])
	if want == got || (got != "" && want != "" && want[0] == got[0] && strings.ContainsAny(got[:1], "{[")) {
		want = fmt.Sprint(args[1])
	}
	if strings.HasPrefix(want, "{") {
		return "a mapping"
	}
	if strings.HasPrefix(want, "[") {
		return "a list"
	}
	if words, ok := kindWords[want]; ok {
		return words
	}
	if strings.HasPrefix(want, "=~") || strings.HasPrefix(want, "!~") {
		// A pattern alone, which only a string can match: its words.
		if help, ok := sc.Help("out of bound " + want); ok {
			return strings.TrimPrefix(help, "want ")
		}
		return "a string"
	}
	return want
}

// shown is a value as an error message quotes it: a mapping or a list
// that takes more than one line is named rather than printed.
func shown(v cue.Value) string {
	text := fmt.Sprint(v)
	if !strings.Contains(text, "\n") {
		return text
	}
	if v.IncompleteKind() == cue.ListKind {
		return "a list"
	}
	return "a mapping"
}

// friendly rewrites CUE's messages for people who write YAML: a value
// out of a pattern is explained in the words of the pattern's @help (the
// schema gives every pattern one), a bound in words.
func friendly(sc *schema.Context, format string, args []any) string {
	msg := fmt.Sprintf(format, args...)
	if help, ok := sc.Help(msg); ok && len(args) > 0 {
		return fmt.Sprintf("got %v, %s", args[0], help)
	}
	if m := outOfBound.FindStringSubmatch(msg); m != nil {
		if m[2] == "!=" {
			if m[3] == `""` {
				return fmt.Sprintf("got %s, want a non-empty string", m[1])
			}
			return fmt.Sprintf("got %s, want anything but %s", m[1], m[3])
		}
		return fmt.Sprintf("got %s, want %s %s", m[1], boundWords[m[2]], m[3])
	}
	if m := runeBound.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("got %s, want %s %s characters", m[1], runeWords[m[2]], m[3])
	}
	if m := listLengths.FindStringSubmatch(msg); m != nil {
		return "got an empty list, want at least one item"
	}
	return msg
}

// outOfBound matches CUE's message for a number outside a bound, or a
// value that equals one it must not.
var outOfBound = regexp.MustCompile(`^invalid value (.+) \(out of bound ([<>]=?|!=)([^=~].*)\)$`)

var boundWords = map[string]string{">=": "at least", "<=": "at most", ">": "more than", "<": "less than"}

// runeBound matches CUE's message for a string too long or too short.
var runeBound = regexp.MustCompile(`^invalid value (.+) \(does not satisfy strings\.(MaxRunes|MinRunes)\(([0-9]+)\)\)$`)

var runeWords = map[string]string{"MaxRunes": "at most", "MinRunes": "at least"}

// listLengths matches CUE's message for a list shorter than the schema's
// [_, ...]: the only bound on a list's length the schema has.
var listLengths = regexp.MustCompile(`^incompatible list lengths \(0 and [0-9]+\)$`)

// kindWords are CUE's names of the kinds of a value, as a YAML file
// writes them.
var kindWords = map[string]string{
	"bool":   "true or false",
	"int":    "an integer",
	"float":  "a number",
	"number": "a number",
	"string": "a string",
	"bytes":  "a string",
	"null":   "null",
}
