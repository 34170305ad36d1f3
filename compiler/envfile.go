package compiler

import (
	"bufio"
	"bytes"
	"os"
	"regexp"
	"strings"

	"github.com/mlcube-compile/mlcube-compile/diag"
)

var envKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// readEnvFile reads KEY=VALUE lines (seed 002's mlops.env). Blank lines and
// lines starting with # are skipped; a value may be quoted. A line that is
// not KEY=VALUE is an error naming its line. at is the key naming the file.
func readEnvFile(path string, at diag.Loc) ([]envVar, diag.Diagnostics) {
	if _, err := os.Stat(path); err != nil {
		return nil, diag.Diagnostics{diag.Errorf(at, "cannot read %s: %v", path, unwrapPathError(err))}
	}
	src, diags := readSpecFile(path, at, "an env file")
	if diags != nil {
		return nil, diags
	}
	return parseEnvFile(path, src, at)
}

// parseEnvFile reports problems at the lines of path, as fields below at,
// the spec key naming the file. Each variable is at its line.
func parseEnvFile(path string, src []byte, at diag.Loc) ([]envVar, diag.Diagnostics) {
	var out []envVar
	var diags diag.Diagnostics
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(make([]byte, 0, 64*1024), maxSpecBytes)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		lineAt := at.At(diag.Pos{File: path, Line: n, Col: 1})
		key, value, ok := strings.Cut(strings.TrimPrefix(line, "export "), "=")
		key = strings.TrimSpace(key)
		if !ok || !envKey.MatchString(key) {
			diags = append(diags, diag.Errorf(lineAt, "want KEY=VALUE, got %q", line))
			continue
		}
		value = unquoteEnv(strings.TrimSpace(value))
		if msg := templateSyntax(value); msg != "" {
			diags = append(diags, diag.Errorf(lineAt.Field(key), "%s", msg))
			continue
		}
		out = append(out, envVar{Name: key, Value: value, Loc: lineAt.Field(key)})
	}
	if err := sc.Err(); err != nil {
		diags = append(diags, diag.Errorf(at.At(diag.Pos{File: path}), "reading: %v", err))
	}
	return out, diags
}

func unquoteEnv(v string) string {
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		return v[1 : len(v)-1]
	}
	return v
}
