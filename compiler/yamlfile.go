package compiler

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strconv"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/errors"
	"cuelang.org/go/cue/token"
	"cuelang.org/go/encoding/yaml"
)

// maxSpecBytes bounds the size of one spec file. Real specs are a few
// kilobytes; anything near this is a mistake, not a cube.
const maxSpecBytes = 4 << 20

// readYAML reads one YAML spec file and parses it keeping positions.
// Problems are reported against the file.
func readYAML(path string, diags *Diagnostics) (*ast.File, bool) {
	whole := Pos{File: path}
	info, err := os.Stat(path)
	switch {
	case err != nil:
		diags.errorf(whole, "", "cannot read: %v", unwrapPathError(err))
		return nil, false
	case info.IsDir():
		diags.errorf(whole, "", "is a folder, want a YAML file")
		return nil, false
	case info.Size() > maxSpecBytes:
		diags.errorf(whole, "", "file is %d bytes, larger than the %d-byte limit for a spec", info.Size(), maxSpecBytes)
		return nil, false
	}
	src, err := os.ReadFile(path)
	if err != nil {
		diags.errorf(whole, "", "cannot read: %v", unwrapPathError(err))
		return nil, false
	}
	if len(bytes.TrimSpace(src)) == 0 {
		diags.errorf(whole, "", "file is empty")
		return nil, false
	}
	if bytes.IndexByte(src, 0) >= 0 {
		diags.errorf(whole, "", "file is binary, want YAML")
		return nil, false
	}
	f, err := yaml.Extract(path, src)
	if err != nil {
		addCUEErrors(diags, path, err)
		return nil, false
	}
	if len(f.Decls) == 0 || !isMapping(f) {
		diags.errorf(Pos{File: path, Line: 1, Col: 1}, "", "want a YAML mapping at the top of the file")
		return nil, false
	}
	if !checkTree(f, diags) {
		return nil, false
	}
	return f, true
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

func unwrapPathError(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// posOf converts a CUE position.
func posOf(p token.Pos) Pos {
	if !p.IsValid() {
		return Pos{}
	}
	return Pos{File: p.Filename(), Line: p.Line(), Col: p.Column()}
}

// yamlErrorLine matches the YAML parser's errors, which name a line only.
var yamlErrorLine = regexp.MustCompile(`^(?:.*?:(\d+): |yaml: line (\d+): )(.*)$`)

// addCUEErrors records parse errors, which carry a position but no field.
// The YAML parser's own errors give a line and no column; those point at
// the start of the line.
func addCUEErrors(diags *Diagnostics, file string, err error) {
	for _, e := range errors.Errors(err) {
		pos := Pos{File: file, Line: 1, Col: 1}
		if p := posOf(e.Position()); p.File != "" {
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
		diags.errorf(pos, "", "YAML: %s", msg)
	}
}

// namedFields calls fn for each field of a mapping whose key has a name.
func namedFields(decls []ast.Decl, fn func(name string, field *ast.Field)) {
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
