package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseDockerfile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "Dockerfile")
	text := "# a comment\nFROM ubuntu:18.04\n\nRUN apt-get update && \\\n    apt-get install -y \\\n" +
		"            curl && \\\n    rm -rf /var/lib/apt/lists/*\n# between\nentrypoint [\"python3\", \"/workspace/x.py\"]"
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := parseDockerfile(file)
	if err != nil {
		t.Fatal(err)
	}
	want := []instruction{
		{"FROM", "ubuntu:18.04", 2},
		{"RUN", "apt-get update && apt-get install -y curl && rm -rf /var/lib/apt/lists/*", 4},
		{"ENTRYPOINT", `["python3", "/workspace/x.py"]`, 9},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if err := os.WriteFile(file, []byte("# escape=`\nFROM python:3.9\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := parseDockerfile(file); err == nil || !strings.Contains(err.Error(), "Dockerfile:1: parser directive") {
		t.Errorf("an escape directive: %v, want it refused at line 1", err)
	}
}

func TestEnvPairs(t *testing.T) {
	for _, c := range []struct {
		args string
		want [][2]string
		err  bool
	}{
		{"LANG C.UTF-8", [][2]string{{"LANG", "C.UTF-8"}}, false},
		{"MSG hello world", [][2]string{{"MSG", "hello world"}}, false},
		{`A=1 B="two words" C='x'`, [][2]string{{"A", "1"}, {"B", "two words"}, {"C", "x"}}, false},
		{"PATH=/x:$PATH", nil, true},
		{"LONELY", nil, true},
	} {
		got, err := envPairs(c.args)
		if (err != nil) != c.err || !reflect.DeepEqual(got, c.want) {
			t.Errorf("envPairs(%q) = %q, %v; want %q, error %v", c.args, got, err, c.want, c.err)
		}
	}
}

func TestExecForm(t *testing.T) {
	if got, _ := execForm(`["python3"]`); !reflect.DeepEqual(got, []string{"python3"}) {
		t.Errorf("exec form: %q", got)
	}
	if got, _ := execForm("python3 /project/x.py"); !reflect.DeepEqual(got,
		[]string{"/bin/sh", "-c", "python3 /project/x.py"}) {
		t.Errorf("shell form: %q", got)
	}
	if _, err := execForm(`["python3", 1]`); err == nil {
		t.Error("a JSON array with a number: no error")
	}
}

// TestDockerignore follows Docker's rules: a pattern matches a path or
// one of its parent folders, * stays within a name, ** crosses folders,
// the last matching pattern decides, ! excepts.
func TestDockerignore(t *testing.T) {
	dir := t.TempDir()
	ignore := "# comment\nworkspace/\n*.md\n!KEEP.md\n**/*.pyc\n/build\ndata/**/raw\n"
	if err := os.WriteFile(filepath.Join(dir, ".dockerignore"), []byte(ignore), 0o644); err != nil {
		t.Fatal(err)
	}
	patterns, err := readIgnore(filepath.Join(dir, ".dockerignore"))
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]bool{
		"workspace": true, "workspace/names/alice.txt": true, "workspaces": false,
		"README.md": true, "KEEP.md": false, "docs/README.md": false,
		"a.pyc": true, "x/y/a.pyc": true, "build": true, "build/x": true, "src/build": false,
		"data/raw": true, "data/a/b/raw/f": true, "data/rawer": false, "hello_world.py": false,
	} {
		if got := excluded(patterns, path); got != want {
			t.Errorf("excluded(%q) = %v, want %v", path, got, want)
		}
	}
	if p, err := readIgnore(filepath.Join(dir, "none")); err != nil || p != nil {
		t.Errorf("no .dockerignore: %v, %v", p, err)
	}
}
