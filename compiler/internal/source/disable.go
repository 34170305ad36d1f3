package source

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	yamlv3 "go.yaml.in/yaml/v3"

	"github.com/mlcube-compile/mlcube-compile/diag"
)

// Disabled is what a spec file's disable comments silence: warnings by
// code in the whole file, or in the node a line of which a comment is
// on.
type Disabled struct {
	// Comments are every disable comment's known codes, one each, in
	// the file's order.
	Comments []Comment
	// Unknown are the comments' words that are no code, for a warning.
	Unknown diag.Diagnostics
	// nodes are the last line of each node of the file by where it
	// starts: a mapping entry at its key, a list item where it starts
	// (as Positions places them).
	nodes map[nodeStart]int
}

// Comment is one code of a disable comment.
type Comment struct {
	// File, Line and Col are where the code is written.
	File      string
	Line, Col int
	Code      diag.Code
	// On is the line the comment is about: its own, or the next when it
	// is alone on its line. WholeFile is a disable-file comment's.
	On        int
	WholeFile bool
}

// nodeStart is where a node starts: line and column, 1-based; item
// tells a list item from the mapping entry that may start at the same
// place (- name: x).
type nodeStart struct {
	line, col int
	item      bool
}

// Silences reports whether c silences a warning of c's code placed at
// pos, at the field path field: a disable-file comment anywhere, a
// comment whose line (On) is a line of the node the warning is placed
// in, the mapping entry or list item that starts at pos (the warning's
// line alone when no node starts there).
func (d Disabled) Silences(c Comment, pos diag.Pos, field string) bool {
	if c.WholeFile {
		return true
	}
	if pos.Line == 0 {
		return false
	}
	last, ok := d.nodes[nodeStart{pos.Line, pos.Col, strings.HasSuffix(field, "]")}]
	if !ok {
		last = pos.Line
	}
	return c.On >= pos.Line && c.On <= last
}

// disableComment is "# mlcube-compile: disable CODE[,CODE...]" (the
// warnings of the node at its line, or, alone on its line, at the next
// one) or "# mlcube-compile: disable-file CODE[,...]" (the whole file).
var disableComment = regexp.MustCompile(`(^|\s)#\s*mlcube-compile:\s*(disable|disable-file)\s+([^#]+)`)

// codeWord is one word of a disable comment's list of codes.
var codeWord = regexp.MustCompile(`[^,\s]+`)

// ReadDisabled reads the disable comments of the spec file path, and
// where its nodes start and end; a file that cannot be read has none
// (its reading reported why).
func (fl *Files) ReadDisabled(path string) Disabled {
	var out Disabled
	src, diags := fl.readSpecFile(path, diag.At(diag.Pos{File: path}), "a spec file")
	if diags != nil {
		return out
	}
	for i, line := range strings.Split(string(src), "\n") {
		m := disableComment.FindStringSubmatchIndex(line)
		if m == nil {
			continue
		}
		on := i + 1
		if strings.TrimSpace(line[:m[3]]) == "" {
			on++ // a comment alone on its line is about the next one
		}
		for _, wm := range codeWord.FindAllStringIndex(line[m[6]:m[7]], -1) {
			w := line[m[6]+wm[0] : m[6]+wm[1]]
			code := diag.Code(w)
			col := utf8.RuneCountInString(line[:m[6]+wm[0]]) + 1 // in characters, as the decoder counts
			if !diag.Known(code) {
				at := diag.At(diag.Pos{File: path, Line: i + 1, Col: col}).Field("mlcube-compile")
				msg := fmt.Sprintf("%q is no warning's code", w)
				if diag.IsError(code) {
					msg = fmt.Sprintf("%q is an error's code, and errors cannot be silenced", w)
				}
				out.Unknown = append(out.Unknown, diag.Warnf(diag.UnknownCode, at, "%s", msg).WithSuggestion(w, diag.CodeNames()))
				continue
			}
			out.Comments = append(out.Comments,
				Comment{File: path, Line: i + 1, Col: col, Code: code, On: on, WholeFile: line[m[4]:m[5]] == "disable-file"})
		}
	}
	if len(out.Comments) > 0 {
		out.nodes = nodeEnds(src)
	}
	return out
}

// nodeEnds is the last line of every node of the YAML src by where it
// starts; none when src does not parse.
func nodeEnds(src []byte) map[nodeStart]int {
	var doc yamlv3.Node
	if err := yamlv3.Unmarshal(src, &doc); err != nil {
		return nil
	}
	out := map[nodeStart]int{}
	var walk func(n *yamlv3.Node) int
	walk = func(n *yamlv3.Node) int {
		last := n.Line + strings.Count(strings.TrimRight(n.Value, "\n"), "\n")
		if n.Style&(yamlv3.LiteralStyle|yamlv3.FoldedStyle) != 0 {
			last++ // the value starts on the line after its indicator
		}
		switch n.Kind {
		case yamlv3.DocumentNode:
			for _, c := range n.Content {
				last = max(last, walk(c))
			}
		case yamlv3.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				end := max(walk(k), walk(v))
				out[nodeStart{k.Line, k.Column, false}] = end
				last = max(last, end)
			}
		case yamlv3.SequenceNode:
			for _, c := range n.Content {
				end := walk(c)
				out[nodeStart{c.Line, c.Column, true}] = end
				last = max(last, end)
			}
		}
		return last
	}
	walk(&doc)
	return out
}
