package source

import (
	"strings"

	"cuelang.org/go/cue/ast"
)

// TopLevelString returns the string value of a top-level key of a parsed
// file, which is how spec kinds are told apart by content.
func TopLevelString(f *ast.File, key string) string {
	value := ""
	NamedFields(f.Decls, func(name string, field *ast.Field) {
		if lit, ok := field.Value.(*ast.BasicLit); ok && name == key {
			value = strings.Trim(lit.Value, `"'`)
		}
	})
	return value
}

// HasTopLevel reports whether key is a top-level key of f.
func HasTopLevel(f *ast.File, key string) bool {
	found := false
	NamedFields(f.Decls, func(name string, _ *ast.Field) { found = found || name == key })
	return found
}

// TopLevelMapping reports whether key is a top-level key whose value is a
// mapping, as steps: and tasks: are; other tools' files (a CI system's
// steps: list) are not ours.
func TopLevelMapping(f *ast.File, key string) bool {
	found := false
	NamedFields(f.Decls, func(name string, field *ast.Field) {
		_, isMap := field.Value.(*ast.StructLit)
		found = found || (name == key && isMap)
	})
	return found
}

// RawKey is a top-level key of a file the YAML decoder refuses, as its
// lines show it: enough to tell whether the file is meant as a spec.
type RawKey struct {
	Name string
	// Value is the plain value written on the key's line, unquoted.
	Value string
	// Mapping: a flow mapping ({...}) follows the key, or indented keys
	// (not list items) on the lines below.
	Mapping bool
	// Line is the key's line, from 1.
	Line int
}

// Manifest finds the kind: key of a Kubernetes object among a file's
// top-level keys: apiVersion and kind, which no spec has. A file of
// several documents gives the keys of each.
func Manifest(keys []RawKey) (kind RawKey, api string, ok bool) {
	var hasAPI, hasKind bool
	for _, k := range keys {
		switch {
		case k.Name == "apiVersion" && !hasAPI:
			hasAPI, api = true, k.Value
		case k.Name == "kind" && !hasKind:
			hasKind, kind = true, k
		}
	}
	return kind, api, hasAPI && hasKind
}

// RawTopLevel reads the top-level keys of src line by line, without
// parsing it: for a file that does not parse, so that lint can tell a
// broken spec (reported) from other tools' YAML (skipped). A key ends as
// the hint reader's keys end (keyEnd: at ": " or a colon that ends the
// line, a quoted key at its closing quote), and a comment as its
// comments do (cutComment): one set of lexical rules for the YAML the
// decoder refuses.
func RawTopLevel(src []byte) []RawKey {
	lines := strings.Split(string(normalizeNewlines(src)), "\n")
	var keys []RawKey
	for i, line := range lines {
		text := []byte(strings.TrimRight(line, " \t"))
		if len(text) == 0 || isSpace(text[0]) || text[0] == '#' || isDash(text, 0) {
			continue
		}
		end := keyEnd(text)
		if end < 0 {
			continue
		}
		name := strings.Trim(strings.TrimSpace(string(text[:end])), `"'`)
		value := strings.TrimSpace(string(cutComment(text[end+1:])))
		keys = append(keys, RawKey{
			Name: name, Value: strings.Trim(value, `"'`),
			Mapping: strings.HasPrefix(value, "{") || value == "" && indentedKeyNext(lines[i+1:]),
			Line:    i + 1,
		})
	}
	return keys
}

// indentedKeyNext reports whether the first line of content in lines is
// indented and not a list item.
func indentedKeyNext(lines []string) bool {
	for _, line := range lines {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		return (line[0] == ' ' || line[0] == '\t') && !strings.HasPrefix(trimmed, "-")
	}
	return false
}

// RawTopLevel reads path and returns its top-level keys as RawTopLevel
// finds them; none when it cannot be read.
func (fl *Files) RawTopLevel(path string) []RawKey {
	src, diags := fl.readSpecFile(path, Flag("lint"), "a YAML file")
	if diags != nil {
		return nil
	}
	return RawTopLevel(src)
}
