package source

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/errors"
	"cuelang.org/go/cue/token"
	"cuelang.org/go/encoding/yaml"

	"github.com/mlcube-compile/mlcube-compile/diag"
)

// Flag is the location of a command-line flag, or of what names a file
// when no spec does (lint).
func Flag(name string) diag.Loc { return diag.Flag(name) }

// ParseYAML parses the bytes of the spec file path and checks the tree:
// one mapping, no duplicate keys, no engine template syntax. YAML the
// decoder refuses is explained by findSlip where it can be.
func ParseYAML(path string, via diag.Loc, src []byte) (*ast.File, diag.Diagnostics) {
	return parseYAML(path, via, src, false)
}

// parseYAML is ParseYAML; with keepLast, a key written twice in one
// mapping keeps its last value, with a warning, as ReadYAMLKeepLast says.
func parseYAML(path string, via diag.Loc, src []byte, keepLast bool) (*ast.File, diag.Diagnostics) {
	whole := via.At(diag.Pos{File: path})
	top := via.At(diag.Pos{File: path, Line: 1, Col: 1})
	fail := func(at diag.Loc, msg string) (*ast.File, diag.Diagnostics) {
		return nil, diag.Diagnostics{diag.Errorf(diag.FileUnreadable, at, "%s", msg)}
	}
	switch {
	case len(bytes.TrimSpace(src)) == 0:
		return fail(whole, "file is empty")
	case onlyComments(src):
		return fail(whole, "file is empty: it holds only comments")
	case bytes.IndexByte(src, 0) >= 0:
		return fail(whole, "file is binary, want YAML")
	}
	src = normalizeNewlines(src)
	if kind, api, ok := manifest(src); ok {
		at := diag.At(diag.Pos{File: path, Line: kind.Line, Col: 1}).Field("kind")
		return nil, diag.Diagnostics{diag.Errorf(diag.FileUnreadable, at,
			"%s %s is a Kubernetes object, such as mlcube-compile writes, not a spec", api, kind.Value).
			WithFix("give the spec it is compiled from (an mlcube.yaml, a platform file, a pipeline file or a values file)")}
	}
	f, err := extractYAML(path, src)
	if err != nil {
		if s, ok := findSlip(src); ok {
			return nil, diag.Diagnostics{diag.Errorf(diag.YAMLSyntax, diag.At(diag.Pos{File: path, Line: s.line, Col: s.col}),
				"YAML: %s%s", s.msg, templateHint(src)).WithFix(s.fix)}
		}
		return nil, CueErrors(path, err, templateHint(src))
	}
	fillPositions(f, src)
	switch {
	case !isMapping(f) && bytes.Contains(src, []byte("\n---")):
		return fail(top, "the file holds several YAML documents; a spec is one document, so remove the --- lines")
	case !isMapping(f):
		return fail(top, "want a YAML mapping at the top of the file")
	}
	var dropped diag.Diagnostics
	if keepLast {
		f.Decls, dropped = dropEarlierKeys(f.Decls, diag.Loc{})
	}
	if diags := CheckTree(f); diags != nil {
		if slices.ContainsFunc(diags, func(d diag.Diagnostic) bool { return d.Code != diag.DuplicateKey }) {
			return nil, diags
		}
		// A key written twice is an error, and the file is read on with
		// the key's first value, so that its other mistakes are said in
		// the same run: the compile fails on the duplicate all the same.
		f.Decls = dropLaterKeys(f.Decls)
		return f, append(dropped, diags...)
	}
	return f, dropped
}

// normalizeNewlines turns CRLF and lone CR line breaks, both line breaks
// in YAML, into LF: CUE's decoder counts only LF and fails on a lone CR.
func normalizeNewlines(src []byte) []byte {
	if bytes.IndexByte(src, '\r') < 0 {
		return src
	}
	src = bytes.ReplaceAll(src, []byte("\r\n"), []byte("\n"))
	return bytes.ReplaceAll(src, []byte("\r"), []byte("\n"))
}

// extractYAML parses YAML with CUE's decoder. A panic there is a bug in the
// decoder on hostile input; it becomes an error about the file, not a crash.
func extractYAML(path string, src []byte) (f *ast.File, err error) {
	defer func() {
		if r := recover(); r != nil {
			f, err = nil, fmt.Errorf("%s: the YAML decoder cannot read this file (%v)", path, r)
		}
	}()
	return yaml.Extract(path, src)
}

// onlyComments reports whether src holds nothing but blank lines and
// comments.
func onlyComments(src []byte) bool {
	for _, line := range bytes.Split(src, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) > 0 && line[0] != '#' {
			return false
		}
	}
	return true
}

// templateHint explains a YAML error in a file that is still a template.
func templateHint(src []byte) string {
	for _, mark := range []string{"{%", "{{"} {
		if bytes.Contains(src, []byte(mark)) {
			return " (the file holds template syntax " + mark + "; render the template first)"
		}
	}
	return ""
}

// isMapping reports whether the document is a mapping, which is what every
// spec kind is.
func isMapping(f *ast.File) bool {
	for _, d := range f.Decls {
		switch d.(type) {
		case *ast.Field, *ast.CommentGroup:
		default:
			return false
		}
	}
	return true
}

// PosOf converts a CUE position.
func PosOf(p token.Pos) diag.Pos {
	if !p.IsValid() {
		return diag.Pos{}
	}
	return diag.Pos{File: p.Filename(), Line: p.Line(), Col: p.Column()}
}

// hugeNumber matches what the YAML decoder says of an integer too large
// for it.
var hugeNumber = regexp.MustCompile(`illegal number start "number & (\S+)"`)

// yamlErrorLine matches the YAML parser's errors, which name a line only.
var yamlErrorLine = regexp.MustCompile(`^(?:.*?:(\d+): |yaml: line (\d+): )(.*)$`)

// CueErrors turns parse errors, which carry a position but no field,
// into diagnostics. The YAML parser's own errors give a line and no
// column; those point at the start of the line. hint is added to each
// message.
func CueErrors(file string, err error, hint string) diag.Diagnostics {
	var diags diag.Diagnostics
	for _, e := range errors.Errors(err) {
		pos := diag.Pos{File: file, Line: 1, Col: 1}
		if p := PosOf(e.Position()); p.File != "" {
			pos = p
		}
		format, args := e.Msg()
		msg := fmt.Sprintf(format, args...)
		if !e.Position().IsValid() {
			msg = e.Error()
		}
		if m := yamlErrorLine.FindStringSubmatch(msg); m != nil && !e.Position().IsValid() {
			line, _ := strconv.Atoi(m[1] + m[2])
			pos.Line, msg = line, m[3]
		}
		msg = strings.TrimPrefix(msg, file+": ")
		if m := hugeNumber.FindStringSubmatch(msg); m != nil {
			msg = m[1] + " is too large a number"
		}
		diags = append(diags, diag.Errorf(diag.YAMLSyntax, diag.At(pos), "YAML: %s%s", msg, hint))
	}
	return diags
}

// NamedFields calls fn for each field of a mapping whose key has a name.
func NamedFields(decls []ast.Decl, fn func(name string, field *ast.Field)) {
	for _, d := range decls {
		field, ok := d.(*ast.Field)
		if !ok {
			continue
		}
		if name, _, err := ast.LabelName(field.Label); err == nil {
			fn(name, field)
		}
	}
}

// KeepFields returns decls without the fields that keep refuses, given
// each field with its name; other declarations, and fields whose label is
// not a plain name, stay.
func KeepFields(decls []ast.Decl, keep func(name string, field *ast.Field) bool) []ast.Decl {
	kept := decls[:0:0]
	for _, d := range decls {
		if field, ok := d.(*ast.Field); ok {
			if name, _, err := ast.LabelName(field.Label); err == nil && !keep(name, field) {
				continue
			}
		}
		kept = append(kept, d)
	}
	return kept
}

// manifest is Manifest of src's top-level keys, read only when src holds
// an apiVersion key at all: most specs do not, and are not scanned twice.
func manifest(src []byte) (kind RawKey, api string, ok bool) {
	if !bytes.Contains(src, []byte("apiVersion")) {
		return RawKey{}, "", false
	}
	return Manifest(RawTopLevel(src))
}
