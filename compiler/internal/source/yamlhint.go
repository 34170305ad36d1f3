package source

import (
	"bytes"
	"fmt"
)

// The YAML decoder's errors name the line where the enclosing mapping or
// string starts, in the parser's words ("did not find expected key",
// "found character that cannot start any token"), and no column. When it
// refuses a file, findSlip reads the file again for the mistakes people
// make most (a tab in the indentation, a key out of line, a second ": "
// in a plain value, no space after a colon, a quote or bracket left open)
// and says what and where each is, and what to do, in plain words. It
// reads only as much of YAML as these need, and stops where it cannot
// follow, so that the decoder's own message stands rather than a guess.

// slip is a common YAML mistake: where it is (1-based line, byte column)
// and what to do about it.
type slip struct {
	line, col int
	msg       string
	// fix says what to write instead; "" when the message says it.
	fix string
}

// level is one block collection open at a line: its indentation, what it
// holds, and the last key or dash written at it (named in messages).
type level struct {
	indent int
	kind   nodeKind
	label  string // "train:", or "-" for an item of a list
	line   int
	text   []byte // the first line of a plain value, after its indentation
}

// nodeKind is what a line of block YAML starts.
type nodeKind int

const (
	kindMapping nodeKind = iota // key: value
	kindSeq                     // - item
	kindScalar                  // plain or quoted text
	kindOther                   // a flow collection, a block scalar or an explicit key
)

// after is what a block line leaves for the line below it.
type after int

const (
	afterNothing after = iota // the start of a document
	afterOpen                 // "key:" or "-", its value below
	afterPlain                // a plain value, which deeper lines may continue
	afterDone                 // a quoted, flow or block value: nothing may nest under it
)

// mark is an open quote or bracket.
type mark struct {
	ch        byte
	line, col int
}

// hinter reads a YAML file line by line.
type hinter struct {
	levels []level
	after  after
	prev   level  // the key or dash the line before wrote
	flow   []mark // [ and { open across lines
	// flowStart is whether the next line of a flow collection starts a
	// scalar, rather than going on with a plain one.
	flowStart bool
	quote     *mark // a quoted string open across lines
	block     int   // a block scalar's lines are indented more than this; -1 for none
	found     *slip
	stop      bool // syntax this reader does not follow
}

// findSlip returns the first common mistake in src, a YAML file the
// decoder refused, or false when it finds none of them.
func findSlip(src []byte) (slip, bool) {
	if bytes.HasPrefix(src, []byte("\xef\xbb\xbf")) {
		return slip{}, false
	}
	h := &hinter{block: -1}
	for i, text := range bytes.Split(src, []byte("\n")) {
		h.line(i+1, text)
		if h.found != nil || h.stop {
			break
		}
	}
	if h.found == nil && !h.stop {
		h.endOfFile()
	}
	if h.found == nil {
		return slip{}, false
	}
	return *h.found, true
}

func (h *hinter) report(line, col int, fix, format string, args ...any) {
	if h.found == nil {
		h.found = &slip{line: line, col: col, msg: fmt.Sprintf(format, args...), fix: fix}
	}
}

// line reads one line: part of a block scalar, of a quoted string or flow
// collection open above, or a line of block YAML.
func (h *hinter) line(no int, text []byte) {
	if h.block >= 0 {
		if len(bytes.TrimLeft(text, " \t")) == 0 || indentOf(text) > h.block {
			return
		}
		h.block = -1
	}
	if h.quote != nil || len(h.flow) > 0 {
		h.continueOpen(no, text)
		return
	}
	h.blockLine(no, text)
}

// blockLine checks a line's indentation, then what it holds.
func (h *hinter) blockLine(no int, text []byte) {
	rest := bytes.TrimLeft(text, " \t")
	if len(bytes.TrimSpace(rest)) == 0 || rest[0] == '#' {
		return
	}
	ws := text[:len(text)-len(rest)]
	if i := bytes.IndexByte(ws, '\t'); i >= 0 {
		if !h.tabIsSpace(i) {
			h.report(no, i+1, "replace the tab with spaces", "a tab indents this line, and YAML indents with spaces only")
		}
		return
	}
	n := len(ws)
	switch {
	case n == 0 && (marker(rest, "---") || marker(rest, "...")):
		h.levels, h.after = nil, afterNothing
		h.stop = len(bytes.TrimSpace(rest)) > 3 // content after ---
		return
	case n == 0 && rest[0] == '%' || bytes.IndexByte([]byte("?!&*|>"), rest[0]) >= 0:
		// Directives, explicit keys, a line that starts with a tag,
		// anchor or alias, or with a block scalar's | or >.
		h.stop = true
		return
	}
	if h.place(no, n, rest) {
		h.node(no, text, n)
	}
}

// place checks a line's indentation against the levels above it and
// reports whether to read on: a line that continues a plain value, or
// that sits where this reader cannot follow, is not read further.
func (h *hinter) place(no, n int, rest []byte) bool {
	if len(h.levels) == 0 {
		h.push(no, n, rest)
		return true
	}
	top := h.levels[len(h.levels)-1]
	if h.inScalar(n) {
		if n == top.indent && kindOf(rest) == kindMapping {
			// A key lined up with text: the text was meant as a key.
			h.notAKey(top.line, top.indent, top.text, "")
		}
		return false // more of a plain value, however indented
	}
	switch {
	case n > top.indent:
		return h.deeper(no, n, rest)
	case n < top.indent:
		return h.dedent(no, n, rest)
	}
	return h.sibling(no, n, rest)
}

// inScalar reports whether a line indented n spaces goes on with the
// plain value of the innermost level.
func (h *hinter) inScalar(n int) bool {
	k := len(h.levels)
	return k > 0 && h.levels[k-1].kind == kindScalar && (k == 1 || n > h.levels[k-2].indent)
}

// tabIsSpace reports whether a tab after n spaces is only white space in
// a line that goes on with a plain value, rather than indentation.
func (h *hinter) tabIsSpace(n int) bool {
	k := len(h.levels)
	return h.inScalar(n) || h.after == afterPlain && k > 0 && n > h.levels[k-1].indent
}

// deeper is a line indented more than the one above: a value nested under
// a key or dash left open, or the continuation of a plain value.
func (h *hinter) deeper(no, n int, rest []byte) bool {
	switch {
	case h.after == afterOpen || h.after == afterNothing:
		h.push(no, n, rest)
		return true
	case h.after == afterPlain && kindOf(rest) != kindMapping:
		return false // the plain value above goes on
	}
	h.report(no, n+1, fmt.Sprintf("%s, as %q is", indentBy(h.prev.indent), h.prev.label),
		"this line is indented more than %q on line %d, which already has a value, so nothing can nest under it",
		h.prev.label, h.prev.line)
	return false
}

// dedent is a line indented less than the one above: it must line up
// with a key or dash above it.
func (h *hinter) dedent(no, n int, rest []byte) bool {
	var above *level
	for len(h.levels) > 0 && h.levels[len(h.levels)-1].indent > n {
		l := h.levels[len(h.levels)-1]
		above = &l
		h.levels = h.levels[:len(h.levels)-1]
	}
	if len(h.levels) > 0 && h.levels[len(h.levels)-1].indent == n {
		return h.sibling(no, n, rest)
	}
	fix := ""
	if len(h.levels) > 0 {
		below := h.levels[len(h.levels)-1]
		fix = fmt.Sprintf("%s, as %q on line %d, or ", indentBy(below.indent), below.label, below.line)
	}
	h.report(no, n+1, fmt.Sprintf("%s%s, as %q on line %d", fix, indentBy(above.indent), above.label, above.line),
		"this line is indented by %s, which lines up with nothing above it", countSpaces(n))
	return false
}

// sibling is a line indented as the level above it: another key of the
// same mapping, another item of the same list, or more of a plain value.
func (h *hinter) sibling(no, n int, rest []byte) bool {
	kind := kindOf(rest)
	top := h.levels[len(h.levels)-1]
	if kind == kindSeq && top.kind == kindMapping && h.after == afterOpen {
		// A list under a key may line its dashes up with the key.
		h.levels = append(h.levels, level{indent: n, kind: kindSeq, line: no})
		return true
	}
	if kind != kindSeq && top.kind == kindSeq && len(h.levels) > 1 && h.levels[len(h.levels)-2].indent == n {
		h.levels = h.levels[:len(h.levels)-1]
		top = h.levels[len(h.levels)-1]
	}
	switch {
	case top.kind == kindMapping && kind == kindScalar:
		goesOn := ""
		if h.after == afterPlain {
			goesOn = h.prev.label
		}
		h.notAKey(no, n, rest, goesOn)
		return false
	case top.kind == kindScalar:
		return false
	case top.kind == kindSeq && kind == kindMapping:
		h.report(no, n+1, "indent it as the keys of that item are, or line it up with the key the list belongs to",
			"this key lines up with the \"-\" on line %d, but a list holds only \"- \" items", top.line)
		return false
	case kind != top.kind || kind == kindOther:
		h.stop = true
		return false
	}
	return true
}

// notAKey reports a line of text among the keys of a mapping: rest, at
// line no after n spaces. goesOn is the key whose plain value it could
// continue if it were indented more, if there is one.
func (h *hinter) notAKey(no, n int, rest []byte, goesOn string) {
	text := bytes.TrimSpace(cutComment(rest))
	if len(text) == 0 {
		return
	}
	word := text
	if i := bytes.IndexAny(word, " \t"); i >= 0 {
		word = word[:i]
	}
	if i := bytes.IndexByte(word, ':'); i > 0 && i < len(word)-1 {
		fixed := string(word[:i+1]) + " " + string(word[i+1:])
		h.report(no, n+i+1, fmt.Sprintf("write %q", fixed),
			"%q has no space after its colon, so YAML reads it as one word, not as a key and its value", word)
		return
	}
	if len(word) == len(text) && text[0] != '"' && text[0] != '\'' {
		h.report(no, n+1, fmt.Sprintf("write %q", string(word)+":"), "%q has no colon after it, so it is not a key", word)
		return
	}
	also := ""
	if goesOn != "" {
		also = fmt.Sprintf(", or indent it more than %q to go on with its value", goesOn)
	}
	h.report(no, n+1, "write it as key: value"+also,
		"this line sits among the keys of a mapping but is not \"key: value\"")
}

// push opens a level at line no, indented n spaces, that rest starts.
func (h *hinter) push(no, n int, rest []byte) {
	l := level{indent: n, kind: kindOf(rest), line: no}
	if l.kind == kindScalar {
		l.text = rest
	}
	h.levels = append(h.levels, l)
}

// kindOf is what a line of block YAML, without its indentation, starts.
func kindOf(rest []byte) nodeKind {
	switch {
	case isDash(rest, 0):
		return kindSeq
	case bytes.IndexByte([]byte("[{?|>"), rest[0]) >= 0:
		return kindOther
	case keyEnd(rest) >= 0:
		return kindMapping
	}
	return kindScalar
}

// indentOf counts the spaces a line starts with.
func indentOf(text []byte) int {
	return len(text) - len(bytes.TrimLeft(text, " "))
}

// marker reports whether a line is the document marker m (--- or ...).
func marker(rest []byte, m string) bool {
	return bytes.HasPrefix(rest, []byte(m)) && (len(rest) == 3 || rest[3] == ' ' || rest[3] == '\t')
}

// indentBy says how far to indent a line.
func indentBy(n int) string {
	if n == 0 {
		return "start it at the left margin"
	}
	return "indent it by " + countSpaces(n)
}

func countSpaces(n int) string {
	if n == 1 {
		return "1 space"
	}
	return fmt.Sprintf("%d spaces", n)
}
