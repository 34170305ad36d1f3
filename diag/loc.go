package diag

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Loc is where a value of a spec is: its field path, built with Field
// and Index while a checker walks the spec, and its position, found by
// the file's Finder or given outright. The path is held once, as its
// elements; Path spells it.
type Loc struct {
	find  Finder // nil: every path is at pos
	pos   Pos
	elems []Elem
	// flag is the command-line flag (or command) the place comes from:
	// the flag whose value is wrong, or that named the file at pos.
	flag string
}

// Elem is one step of a path: a field's name, or a list item's index.
type Elem struct {
	Name  string
	Index int
	Item  bool
}

// Finder finds where the value at path is written in a file: the value
// itself, else the nearest enclosing value that is written, else the
// file. written says whether the value itself is.
type Finder interface {
	Find(path []Elem) (pos Pos, written bool)
}

// In is the top of a file whose positions f finds.
func In(f Finder) Loc { return Loc{find: f} }

// At is a place given outright, such as a flag or a line of an env file;
// the fields below it are at the same place.
func At(pos Pos) Loc { return Loc{pos: pos} }

// Flag is a place on the command line: the value of the flag name (such
// as "--set", with each NAME=VALUE a Field below it), or, placed in a file
// with At, the file the flag names.
func Flag(name string) Loc { return Loc{flag: name} }

// Field is the value of the field name below l.
func (l Loc) Field(name string) Loc {
	l.elems = with(l.elems, Elem{Name: name})
	return l
}

// Index is the i-th item of the list at l.
func (l Loc) Index(i int) Loc {
	l.elems = with(l.elems, Elem{Index: i, Item: true})
	return l
}

// At is l's field path at pos, and the fields below it too.
func (l Loc) At(pos Pos) Loc {
	return Loc{pos: pos, elems: l.elems, flag: l.flag}
}

// Flag is the command-line flag l comes from, "" for a place in a spec.
func (l Loc) Flag() string { return l.flag }

// Pos is where l is written, or the nearest enclosing value that is.
func (l Loc) Pos() Pos {
	if l.find == nil {
		return l.pos
	}
	pos, _ := l.find.Find(l.elems)
	return pos
}

// Written reports whether the file writes the value at l itself.
func (l Loc) Written() bool {
	if l.find == nil {
		return false
	}
	_, ok := l.find.Find(l.elems)
	return ok
}

// Path is l's field path as diagnostics print it (FieldOf).
func (l Loc) Path() string { return FieldOf(l.elems) }

// String prints l as a diagnostic begins: file:line:col: field.path.
func (l Loc) String() string { return l.Pos().String() + ": " + l.Path() }

// FieldOf is a field path as diagnostics print it, their Field: names
// joined with dots, a name quoted unless it is plain, [i] for a list
// item.
func FieldOf(path []Elem) string {
	var b strings.Builder
	for _, e := range path {
		switch {
		case e.Item:
			b.WriteString("[" + strconv.Itoa(e.Index) + "]")
		case b.Len() > 0:
			b.WriteString("." + spellName(e.Name))
		default:
			b.WriteString(spellName(e.Name))
		}
	}
	return b.String()
}

// with is elems and e, in a new array: Locs share no storage.
func with(elems []Elem, e Elem) []Elem {
	out := make([]Elem, len(elems)+1)
	copy(out, elems)
	out[len(elems)] = e
	return out
}

// plainKey is a key that a field path can show without quotes.
var plainKey = regexp.MustCompile(`^[A-Za-z0-9_./-]+$`)

// spellName is a key as a field path shows it: quoted when it has spaces
// or other characters that would make the path hard to read.
func spellName(name string) string {
	if !plainKey.MatchString(name) {
		return strconv.Quote(name)
	}
	return name
}

// parsePath reads a field path FieldOf spelled back into elements. A
// plain name may hold dots, so names read back may be cut otherwise than
// the ones spelled, but they spell the same path; ok is false for text
// FieldOf does not write.
func parsePath(s string) (path []Elem, ok bool) {
	for i := 0; i < len(s); {
		if len(path) > 0 && s[i] == '.' {
			i++ // the dot before a name
		}
		switch rest := s[i:]; {
		case rest == "":
			return nil, false
		case rest[0] == '[':
			end := strings.IndexByte(rest, ']')
			n, err := strconv.Atoi(rest[1:max(end, 1)])
			if end < 0 || err != nil {
				return nil, false
			}
			path, i = append(path, Elem{Index: n, Item: true}), i+end+1
		case rest[0] == '"':
			q, err := strconv.QuotedPrefix(rest)
			if err != nil {
				return nil, false
			}
			name, _ := strconv.Unquote(q)
			path, i = append(path, Elem{Name: name}), i+len(q)
		default:
			end := strings.IndexAny(rest, `["`)
			if end < 0 {
				end = len(rest)
			}
			name := rest[:end]
			if strings.HasPrefix(rest[end:], `"`) {
				name = strings.TrimSuffix(name, ".") // the dot before the quoted name
			}
			path, i = append(path, Elem{Name: name}), i+end
		}
	}
	return path, FieldOf(path) == s
}

// locJSON is a Loc as JSON writes it: where it is written, and its field
// path. The compiler's IR golden files hold Locs this way.
type locJSON struct {
	File string `json:"file"`
	Line int    `json:"line,omitempty"`
	Col  int    `json:"col,omitempty"`
	Path string `json:"path,omitempty"`
}

// MarshalJSON writes l's position and field path.
func (l Loc) MarshalJSON() ([]byte, error) {
	p := l.Pos()
	return json.Marshal(locJSON{File: p.File, Line: p.Line, Col: p.Col, Path: l.Path()})
}

// UnmarshalJSON reads a Loc that MarshalJSON wrote. The file's finder is
// not written, so the fields below the Loc read back are at its position.
func (l *Loc) UnmarshalJSON(b []byte) error {
	var j locJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	path, ok := parsePath(j.Path)
	if !ok {
		return fmt.Errorf("%q is not a field path", j.Path)
	}
	*l = Loc{pos: Pos{File: j.File, Line: j.Line, Col: j.Col}, elems: path}
	return nil
}
