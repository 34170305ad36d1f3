package schema

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// What the JSON Schema for editors changes of CUE's generation, so that
// an editor says what the compiler says, once, in words of its own.

// fitForEditors applies the changes to a generated JSON Schema.
func fitForEditors(s map[string]any) {
	walk(s, oneInteger)
	walk(s, typesOfAnyOf)
}

// walk calls fn on every schema object in s.
func walk(s any, fn func(map[string]any)) {
	switch s := s.(type) {
	case map[string]any:
		fn(s)
		for _, v := range s {
			walk(v, fn)
		}
	case []any:
		for _, v := range s {
			walk(v, fn)
		}
	}
}

// typeKeywords are the keywords that apply to values of one type only,
// by the type: a schema of another type passes them.
var typeKeywords = map[string][]string{
	"string":  {"pattern", "minLength", "maxLength"},
	"number":  {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"},
	"integer": {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"},
	"boolean": {},
}

// typesOfAnyOf writes an anyOf of alternatives each of its own type, and
// only with keywords of that type (CUE's string & =~"…" | number & >=0),
// as one schema with a list of types and the alternatives' keywords,
// which accepts the same values and which an editor reports once, in
// the terms of the value's own type.
func typesOfAnyOf(s map[string]any) {
	alts, _ := s["anyOf"].([]any)
	if len(alts) < 2 {
		return
	}
	merged, types := map[string]any{}, []any{}
	for _, a := range alts {
		m, _ := a.(map[string]any)
		t, _ := m["type"].(string)
		allowed, known := typeKeywords[t]
		if !known || slices.Contains(types, any(t)) {
			return
		}
		for k, v := range m {
			if _, taken := merged[k]; k != "type" && (taken || !slices.Contains(allowed, k)) {
				return
			}
			merged[k] = v
		}
		types = append(types, t)
	}
	for k := range merged {
		if _, taken := s[k]; taken && k != "type" {
			return
		}
	}
	delete(s, "anyOf")
	for k, v := range merged {
		s[k] = v
	}
	s["type"] = types
}

// oneInteger folds CUE's int & >=0, generated as allOf [{type: number},
// {type: integer, minimum: 0}], into its second part: the first adds
// nothing, and an editor reports a string there twice, once for each.
func oneInteger(s map[string]any) {
	all, _ := s["allOf"].([]any)
	if len(all) != 2 || !isBareType(all[0], "number") {
		return
	}
	rest, _ := all[1].(map[string]any)
	if rest["type"] != "integer" {
		return
	}
	for k := range rest {
		if _, taken := s[k]; taken {
			return
		}
	}
	delete(s, "allOf")
	for k, v := range rest {
		s[k] = v
	}
}

// isBareType reports whether s is {type: t} and nothing else.
func isBareType(s any, t string) bool {
	m, _ := s.(map[string]any)
	return len(m) == 1 && m["type"] == t
}

// plainDescription is a definition's comment without the definition's
// name that CUE comments start with: "#Quantity is a Kubernetes
// quantity" is "A Kubernetes quantity", "#MPI runs the step's task" is
// "Runs the step's task", in the editor that shows it on a key.
func plainDescription(d string) string {
	name, rest, ok := strings.Cut(d, " ")
	if !ok || !strings.HasPrefix(name, "#") || len(name) < 2 {
		return d
	}
	for _, verb := range []string{"is ", "are "} {
		rest = strings.TrimPrefix(rest, verb)
	}
	r, size := utf8.DecodeRuneInString(rest)
	return string(unicode.ToUpper(r)) + rest[size:]
}
