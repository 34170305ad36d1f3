package source

import (
	"bufio"
	"bytes"
	"regexp"
	"strings"

	"github.com/mlcube-compile/mlcube-compile/diag"
)

// EnvVar is one variable of an env file, or of a spec, and where it is
// written.
type EnvVar struct {
	Name, Value string
	Loc         diag.Loc
}

var envKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// parseEnvFile reports problems at the lines of path, as fields below at,
// the spec key naming the file. Each variable is at its line.
func parseEnvFile(path string, src []byte, at diag.Loc) ([]EnvVar, diag.Diagnostics) {
	var out []EnvVar
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
			diags = append(diags, diag.Errorf(diag.EnvFileLine, lineAt, "want KEY=VALUE, got %q", line))
			continue
		}
		value = unquoteEnv(strings.TrimSpace(value))
		if msg, fix := TemplateSyntax(value); msg != "" {
			diags = append(diags, diag.Errorf(diag.EnvFileLine, lineAt.Field(key), "%s", msg).WithFix(fix))
			continue
		}
		out = append(out, EnvVar{Name: key, Value: value, Loc: lineAt.Field(key)})
	}
	if err := sc.Err(); err != nil {
		diags = append(diags, diag.Errorf(diag.FileUnreadable, at.At(diag.Pos{File: path}), "reading: %v", err))
	}
	return out, diags
}

func unquoteEnv(v string) string {
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		return v[1 : len(v)-1]
	}
	return v
}
