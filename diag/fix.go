package diag

import (
	"bytes"
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"
)

// ApplyFixes makes, in src (each file's contents by its name), the edits
// of the first fix of each diagnostic of ds that has edits: all of that
// fix's edits, or none. An edit is made where its Old is written at its
// Pos, as a whole word or between quotes (New then goes between the same
// quotes, escaped for them); it is refused when that text is not there,
// when its Old is empty, or when it overlaps an edit made before it,
// unless it is the very same edit (two engines' diagnostics of one
// problem). The diagnostics are taken in Sorted order, and then by their
// fix's edits, so the result does not depend on ds's order. It returns
// the files it changed, with their new contents (src is left as it is),
// the diagnostics whose fix it made, and those with a fix of edits it
// refused.
func ApplyFixes(src map[string][]byte, ds Diagnostics) (files map[string][]byte, fixed, refused Diagnostics) {
	made := map[string][]span{}
	ds = ds.Sorted()
	slices.SortStableFunc(ds, fixOrder)
	for _, d := range ds {
		edits := fixEdits(d)
		if edits == nil {
			continue
		}
		spans, ok := fixSpans(src, made, edits)
		if !ok {
			refused = append(refused, d)
			continue
		}
		for file, ss := range spans {
			made[file] = append(made[file], ss...)
		}
		fixed = append(fixed, d)
	}
	files = map[string][]byte{}
	for file, ss := range made {
		if out := replace(src[file], ss); !bytes.Equal(out, src[file]) {
			files[file] = out
		}
	}
	return files, fixed, refused
}

// fixEdits are the edits of d's first fix that has edits.
func fixEdits(d Diagnostic) []Edit {
	if i := slices.IndexFunc(d.Fixes, func(f Fix) bool { return len(f.Edits) > 0 }); i >= 0 {
		return d.Fixes[i].Edits
	}
	return nil
}

// fixOrder orders diagnostics as Sorted does, then by the edits of their
// fix, so that which of two fixes of one place is made does not depend
// on the order they were found in.
func fixOrder(a, b Diagnostic) int {
	return cmp.Or(cmp.Compare(a.Pos.File, b.Pos.File), cmp.Compare(a.Pos.Line, b.Pos.Line),
		cmp.Compare(a.Pos.Col, b.Pos.Col), cmp.Compare(a.Field, b.Field),
		cmp.Compare(a.engineMessage(), b.engineMessage()),
		slices.CompareFunc(fixEdits(a), fixEdits(b), func(e, f Edit) int {
			return cmp.Or(cmp.Compare(e.Pos.File, f.Pos.File), cmp.Compare(e.Pos.Line, f.Pos.Line),
				cmp.Compare(e.Pos.Col, f.Pos.Col), cmp.Compare(e.Old, f.Old), cmp.Compare(e.New, f.New))
		}))
}

// span is an edit found in a file: bytes [start, end) become text.
type span struct {
	start, end int
	text       string
}

// fixSpans are the spans of a fix's edits, by file, without those made
// already; ok is false when one of the edits cannot be made: its text is
// not there, or it overlaps another edit of the fix or one made before.
func fixSpans(src map[string][]byte, made map[string][]span, edits []Edit) (spans map[string][]span, ok bool) {
	spans = map[string][]span{}
	for _, e := range edits {
		text, exists := src[e.Pos.File]
		if !exists {
			return nil, false
		}
		s, found := find(text, e)
		if !found {
			return nil, false
		}
		if slices.Contains(made[e.Pos.File], s) || slices.Contains(spans[e.Pos.File], s) {
			continue
		}
		if overlaps(made[e.Pos.File], s) || overlaps(spans[e.Pos.File], s) {
			return nil, false
		}
		spans[e.Pos.File] = append(spans[e.Pos.File], s)
	}
	return spans, true
}

// overlaps reports whether s shares a byte with one of spans.
func overlaps(spans []span, s span) bool {
	return slices.ContainsFunc(spans, func(t span) bool { return s.start < t.end && t.start < s.end })
}

// find is where e's Old is written in text: at e.Pos (line and column
// counted as Pos counts them), bare and followed by no more of a word, or
// between quotes.
func find(text []byte, e Edit) (span, bool) {
	at, ok := offset(text, e.Pos)
	if !ok || e.Old == "" {
		return span{}, false
	}
	rest := text[at:]
	for _, q := range []string{`"`, `'`} {
		if bytes.HasPrefix(rest, []byte(q+e.Old+q)) {
			return span{at + 1, at + 1 + len(e.Old), quoted(q, e.New)}, true
		}
	}
	if !bytes.HasPrefix(rest, []byte(e.Old)) {
		return span{}, false
	}
	if r, _ := utf8.DecodeRune(rest[len(e.Old):]); len(rest) > len(e.Old) && !strings.ContainsRune(" \t\r\n,:]}#", r) {
		return span{}, false // the word goes on: Old is not all of it
	}
	return span{at, at + len(e.Old), e.New}, true
}

// offset is the byte offset in text of pos, whose Col counts characters
// from 1; ok is false for a place not in the text.
func offset(text []byte, pos Pos) (int, bool) {
	if pos.Line < 1 || pos.Col < 1 {
		return 0, false
	}
	at := 0
	for line := 1; line < pos.Line; line++ {
		n := bytes.IndexByte(text[at:], '\n')
		if n < 0 {
			return 0, false
		}
		at += n + 1
	}
	for col := 1; col < pos.Col; col++ {
		if at >= len(text) || text[at] == '\n' {
			return 0, false
		}
		_, size := utf8.DecodeRune(text[at:])
		at += size
	}
	return at, true
}

// quoted is s as it is written between quotes q: YAML doubles a ' in
// single quotes, and escapes " and \ in double ones.
func quoted(q, s string) string {
	if q == "'" {
		return strings.ReplaceAll(s, "'", "''")
	}
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s)
}

// replace is text with each of spans made, in one pass from its start.
func replace(text []byte, spans []span) []byte {
	spans = slices.Clone(spans)
	slices.SortFunc(spans, func(a, b span) int { return a.start - b.start })
	var out []byte
	last := 0
	for _, s := range spans {
		out = append(append(out, text[last:s.start]...), s.text...)
		last = s.end
	}
	return append(out, text[last:]...)
}
