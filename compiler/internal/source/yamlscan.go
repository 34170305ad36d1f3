package source

import (
	"bytes"
	"fmt"
)

// node reads what a block line holds from i, after its indentation:
// dashes of list items, then a key, then a value.
func (h *hinter) node(no int, text []byte, i int) {
	for isDash(text, i) {
		h.setLabel(no, i, "-")
		j := skipSpace(text, i+1)
		if lineDone(text, j) {
			h.after = afterOpen
			return
		}
		h.push(no, j, text[j:])
		i = j
	}
	if k := keyEnd(text[i:]); k >= 0 {
		key := string(bytes.TrimSpace(text[i : i+k]))
		h.setLabel(no, i, key+":")
		j := skipSpace(text, i+k+1)
		if lineDone(text, j) {
			h.after = afterOpen
			return
		}
		h.value(no, text, j, key)
		return
	}
	h.value(no, text, i, "")
}

// setLabel records the key or dash at column col of line no, for
// messages about the lines below it.
func (h *hinter) setLabel(no, col int, label string) {
	top := &h.levels[len(h.levels)-1]
	top.label, top.line = label, no
	h.prev = level{indent: col, label: label, line: no}
}

// value reads a value that starts at i, the value of key ("" for a list
// item's).
func (h *hinter) value(no int, text []byte, i int, key string) {
	h.after = afterDone
	switch c := text[i]; c {
	case '"', '\'':
		q := mark{c, no, i + 1}
		if j := h.stringEnd(no, text, i+1, c); j >= 0 {
			h.blockAfterQuote(no, text, j, q)
			return
		}
		h.quote = &q
	case '-':
		if isDash(text, i) && key != "" {
			h.report(no, i+1, "put each \"- \" item on a line of its own below the key, indented",
				"a list cannot start on the line of its key %q", key)
			return
		}
		h.plain(no, text, i, key)
	case '[', '{':
		h.flow, h.flowStart = []mark{{c, no, i + 1}}, true
		h.flowScan(no, text, i+1, nil)
	case '|', '>':
		h.block = h.prev.indent
	case '&', '!':
		j := i
		for j < len(text) && !isSpace(text[j]) {
			j++
		}
		if j = skipSpace(text, j); lineDone(text, j) {
			h.after = afterOpen
			return
		}
		h.value(no, text, j, key)
	case '@', '`':
		h.report(no, i+1, "put the value in quotes", "a plain value cannot start with %c", c)
	default:
		h.plain(no, text, i, key)
	}
}

// plain reads a plain (unquoted) value of key. It cannot hold ": ",
// which starts a key.
func (h *hinter) plain(no int, text []byte, i int, key string) {
	h.after = afterPlain
	if key == "" {
		return // keyEnd found no ": " on the line
	}
	value := bytes.TrimSpace(cutComment(text[i:]))
	for j := i; j < i+len(value); j++ {
		if text[j] == ':' && sepAfter(text, j) {
			fix := "put the whole value in quotes"
			if q := quoteYAML(string(value)); q != "" {
				fix = fmt.Sprintf("put the value in quotes, as %s: %s", key, q)
			}
			h.report(no, j+1, fix, "the value of %q holds \": \", which YAML reads as the start of another key", key)
			return
		}
	}
}

// flowScan reads a flow collection ([a, b] or {a: b}) from i, until it
// closes or the line ends. last is the quote of a string that ended just
// before i, if one did.
func (h *hinter) flowScan(no int, text []byte, i int, last *mark) {
	// start is whether j is at the start of a scalar, where a quote opens
	// a string; a plain scalar goes on over a line break.
	start := last == nil && h.flowStart
	defer func() { h.flowStart = start }()
	closed := i - 1 // where the string last ended, if last is set
	for j := i; j < len(text) && len(h.flow) > 0; j++ {
		c := text[j]
		if isSpace(c) {
			continue
		}
		if last != nil && bytes.IndexByte([]byte(",]}:#"), c) < 0 {
			h.afterQuote(no, text, closed, j, *last)
			return
		}
		switch {
		case c == '#' && (j == 0 || isSpace(text[j-1]) || last != nil || bytes.IndexByte([]byte("[]{},"), text[j-1]) >= 0):
			// A comment: the decoder looks for one before each token
			// (yaml_parser_scan_to_next_token, go.yaml.in/yaml/v3
			// scannerc.go), so after a flow indicator or a quoted
			// string no space is needed; in a plain scalar it is.
			start = true
			return
		case start && c == '?':
			// An explicit key: in a flow collection the decoder takes ?
			// for one whatever follows it (scannerc.go,
			// yaml_parser_fetch_next_token), and its rules for it are
			// not followed here, as in block YAML.
			h.stop = true
			return
		case start && (c == '"' || c == '\''):
			k := h.stringEnd(no, text, j+1, c)
			if k < 0 {
				h.quote = &mark{c, no, j + 1}
				return
			}
			j, start, last, closed = k, false, &mark{c, no, j + 1}, k
			continue
		case c == '[' || c == '{':
			h.flow = append(h.flow, mark{c, no, j + 1})
			start = true
		case c == ']' || c == '}':
			if !h.closeFlow(no, j, c) {
				return
			}
			if len(h.flow) == 0 {
				h.afterFlow(no, text, j, c)
				return
			}
			start = false
		case c == ',' || (c == ':' && (last != nil || sepAfter(text, j))):
			start = true
		default:
			start = false
		}
		last = nil
	}
}

// closeFlow checks that c, at index j of line no, closes the innermost
// open bracket, and pops it.
func (h *hinter) closeFlow(no, j int, c byte) bool {
	top := h.flow[len(h.flow)-1]
	if want := closerOf(top.ch); c != want {
		h.report(no, j+1, fmt.Sprintf("add %c where that %s ends", want, flowNoun(top.ch)),
			"this %c would close the %c at line %d, column %d, which only %c closes", c, top.ch, top.line, top.col, want)
		return false
	}
	h.flow = h.flow[:len(h.flow)-1]
	return true
}

// afterFlow checks that nothing but a comment follows the bracket c at j
// that closes a flow collection of block YAML.
func (h *hinter) afterFlow(no int, text []byte, j int, c byte) {
	k := skipSpace(text, j+1)
	if lineDone(text, k) || text[k] == ':' {
		return
	}
	inside := "brackets"
	if c == '}' {
		inside = "braces"
	}
	h.report(no, k+1, fmt.Sprintf("put it inside the %s, or start a comment with \" #\"", inside),
		"text follows the %c that closes this %s", c, flowNoun(c))
}

// blockAfterQuote checks that nothing but a comment follows the quote at
// j that closes the string q opened, in block YAML.
func (h *hinter) blockAfterQuote(no int, text []byte, j int, q mark) {
	if k := skipSpace(text, j+1); !lineDone(text, k) && text[k] != ':' {
		h.afterQuote(no, text, j, k, q)
	}
}

// afterQuote reports text at index k of line no, after the quote at j
// that ends the string q opened. When q is on an earlier line, the string
// most likely lacks its closing quote there; a ' right before a letter is
// most likely an apostrophe.
func (h *hinter) afterQuote(no int, text []byte, j, k int, q mark) {
	switch {
	case q.line != no:
		h.report(q.line, q.col, fmt.Sprintf("close it on line %d", q.line),
			"this %c is not closed on its line, so the string runs on to the %c on line %d", q.ch, q.ch, no)
	case q.ch == '\'' && k == j+1 && isWordByte(text[k]):
		h.report(no, j+1, "inside '...', write a ' twice (''), or quote the string with \" instead",
			"this ' ends the string that the ' at column %d opens", q.col)
	default:
		h.report(no, k+1, "put it inside the quotes, or start a comment with \" #\"",
			"text follows the closing %c of this string", q.ch)
	}
}

// stringEnd returns the index of the quote q that closes a string going
// on from index from of line no, or -1 when the line ends first. It
// reports a backslash escape that YAML does not know in a "string".
// The escapes are those the decoder knows (go.yaml.in/yaml/v3
// scannerc.go, yaml_parser_scan_flow_scalar): \' is one, and \/ of
// YAML 1.2 is not.
func (h *hinter) stringEnd(no int, text []byte, from int, q byte) int {
	k := closeQuote(text, from, q)
	if q != '"' {
		return k
	}
	end := k
	if end < 0 {
		end = len(text)
	}
	for j := from; j < end-1; j++ {
		if text[j] != '\\' {
			continue
		}
		e := bytes.IndexByte([]byte("xuU0abt\tnvfre \"'\\N_LP"), text[j+1])
		if e < 0 || e < 3 && !isHex(text[j+2:end], []int{2, 4, 8}[e]) {
			h.report(no, j+1, "write \\\\ for a backslash, or quote the string with ' instead",
				"\\%c is not an escape YAML knows inside \"...\"", text[j+1])
		}
		j++
	}
	return k
}

// isHex reports whether b starts with n hexadecimal digits.
func isHex(b []byte, n int) bool {
	if len(b) < n {
		return false
	}
	for _, c := range b[:n] {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// isWordByte reports whether c is a letter or digit of ASCII.
func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// continueOpen reads a line inside a quoted string or flow collection
// that a line above opened.
func (h *hinter) continueOpen(no int, text []byte) {
	q := h.quote
	if q == nil {
		h.flowScan(no, text, 0, nil)
		return
	}
	k := h.stringEnd(no, text, 0, q.ch)
	if k < 0 {
		return
	}
	h.quote = nil
	if len(h.flow) > 0 {
		h.flowScan(no, text, k+1, q)
		return
	}
	h.blockAfterQuote(no, text, k, *q)
}

// endOfFile reports a quote or bracket still open at the end of the file.
func (h *hinter) endOfFile() {
	if q := h.quote; q != nil {
		h.report(q.line, q.col, fmt.Sprintf("add the closing %c where the string ends", q.ch),
			"this %c is never closed, so the string runs to the end of the file", q.ch)
		return
	}
	if len(h.flow) > 0 {
		m := h.flow[len(h.flow)-1]
		h.report(m.line, m.col, fmt.Sprintf("add the %c that ends it", closerOf(m.ch)),
			"this %c is never closed, so the %s runs to the end of the file", m.ch, flowNoun(m.ch))
	}
}

// keyEnd returns the index in rest, a line of block YAML after its
// indentation and dashes, of the colon that ends its key, or -1.
func keyEnd(rest []byte) int {
	if len(rest) == 0 || rest[0] == '[' || rest[0] == '{' {
		return -1
	}
	if rest[0] == '"' || rest[0] == '\'' {
		j := closeQuote(rest, 1, rest[0])
		if j < 0 {
			return -1
		}
		if i := skipSpace(rest, j+1); i < len(rest) && rest[i] == ':' && sepAfter(rest, i) {
			return i
		}
		return -1
	}
	for i, c := range rest {
		switch {
		case c == '#' && i > 0 && isSpace(rest[i-1]):
			return -1
		case c == ':' && sepAfter(rest, i):
			return i
		}
	}
	return -1
}

// closeQuote returns the index of the quote q that closes a string
// opened before from, or -1 when the line ends first. In a "string" a
// backslash escapes the next character; in a 'string' ” is a quote.
func closeQuote(b []byte, from int, q byte) int {
	for j := from; j < len(b); j++ {
		switch {
		case q == '"' && b[j] == '\\':
			j++
		case q == '\'' && b[j] == '\'' && j+1 < len(b) && b[j+1] == '\'':
			j++
		case b[j] == q:
			return j
		}
	}
	return -1
}

// quoteYAML writes s as a quoted YAML string, or returns "" when s is
// too long to show or holds both kinds of quote.
func quoteYAML(s string) string {
	switch {
	case len(s) > 60:
		return ""
	case !bytes.ContainsAny([]byte(s), `"\`):
		return `"` + s + `"`
	case !bytes.ContainsRune([]byte(s), '\''):
		return "'" + s + "'"
	}
	return ""
}

// cutComment drops a comment (" #" to the end) from a line.
func cutComment(b []byte) []byte {
	for i, c := range b {
		if c == '#' && i > 0 && isSpace(b[i-1]) {
			return b[:i]
		}
	}
	return b
}

func isDash(b []byte, i int) bool {
	return i < len(b) && b[i] == '-' && (i+1 == len(b) || isSpace(b[i+1]))
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' }

// sepAfter reports whether the colon at i ends a key: a space, a tab or
// the end of the line follows it.
func sepAfter(b []byte, i int) bool { return i+1 == len(b) || isSpace(b[i+1]) }

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// lineDone reports whether nothing but a comment is left of a line at j.
func lineDone(b []byte, j int) bool { return j >= len(b) || b[j] == '#' }

func closerOf(open byte) byte {
	if open == '[' {
		return ']'
	}
	return '}'
}

// flowNoun names what a bracket opens or closes.
func flowNoun(c byte) string {
	if c == '[' || c == ']' {
		return "list"
	}
	return "mapping"
}
