package compiler

import (
	"bufio"
	"bytes"
	"os"
	"regexp"
	"strings"
)

var envKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// readEnvFile reads KEY=VALUE lines (seed 002's mlops.env). Blank lines and
// lines starting with # are skipped; a value may be quoted. A line that is
// not KEY=VALUE is an error naming its line.
func readEnvFile(path string, at Pos, field string, diags *Diagnostics) []envVar {
	if _, err := os.Stat(path); err != nil {
		diags.errorf(at, field, "cannot read %s: %v", path, unwrapPathError(err))
		return nil
	}
	src, ok := readSpecFile(path, field, "an env file", diags)
	if !ok {
		return nil
	}
	return parseEnvFile(path, src, field, diags)
}

// parseEnvFile reports problems against field, the spec key naming the file.
func parseEnvFile(path string, src []byte, field string, diags *Diagnostics) []envVar {
	var out []envVar
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(make([]byte, 0, 64*1024), maxSpecBytes)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		pos := Pos{File: path, Line: n, Col: 1}
		key, value, ok := strings.Cut(strings.TrimPrefix(line, "export "), "=")
		key = strings.TrimSpace(key)
		if !ok || !envKey.MatchString(key) {
			diags.errorf(pos, field, "want KEY=VALUE, got %q", line)
			continue
		}
		value = unquoteEnv(strings.TrimSpace(value))
		if msg := templateSyntax(value); msg != "" {
			diags.errorf(pos, field+"."+key, "%s", msg)
			continue
		}
		out = append(out, envVar{Name: key, Value: value, Pos: pos})
	}
	if err := sc.Err(); err != nil {
		diags.errorf(Pos{File: path}, field, "reading: %v", err)
	}
	return out
}

func unquoteEnv(v string) string {
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		return v[1 : len(v)-1]
	}
	return v
}
