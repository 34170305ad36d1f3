package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// readOr returns the file's bytes, or nil when there is none.
func readOr(path string) []byte {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	return b
}

// FuzzCompile feeds spec bytes through the whole command, for every
// backend: a cube, a platform file, a pipeline file and an env file that
// the pipeline may name as mlops.env. Whatever the bytes, the command must
// not crash or report an internal error; a success prints manifests the
// backend's validator accepted, and a failure prints nothing on stdout.
func FuzzCompile(f *testing.F) {
	if testing.Short() {
		f.Skip("skipped with -short: its seeds are every example and corpus case, about 3 s")
	}
	for _, root := range []string{filepath.Join(repoRoot, "examples"), filepath.Join(repoRoot, "testdata", "bad")} {
		dirs, _ := os.ReadDir(root)
		for _, d := range dirs {
			dir := filepath.Join(root, d.Name())
			f.Add(readOr(filepath.Join(dir, "mlcube.yaml")), readOr(filepath.Join(dir, "platform.yaml")),
				readOr(filepath.Join(dir, "pipeline.yaml")), readOr(filepath.Join(dir, "mlops.env")))
		}
	}
	f.Fuzz(func(t *testing.T, cube, platform, pipeline, env []byte) {
		dir := t.TempDir()
		args := []string{"--mlcube", dir}
		for name, body := range map[string][]byte{"mlcube.yaml": cube, "platform.yaml": platform, "pipeline.yaml": pipeline,
			"mlops.env": env} {
			if body == nil {
				continue
			}
			if err := os.WriteFile(filepath.Join(dir, name), body, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if platform != nil {
			args = append(args, "--platform", filepath.Join(dir, "platform.yaml"))
		}
		if pipeline != nil {
			args = append(args, "--task", filepath.Join(dir, "pipeline.yaml"))
		}
		for _, b := range backendNames {
			var outs []string
			for range 2 {
				if msg := withinDeadline(fuzzDeadline, func() string {
					var stdout, stderr bytes.Buffer
					code := run(append([]string{"mlcube-compile", "--backend", b}, args...), &stdout, &stderr)
					outs = append(outs, fmt.Sprint(code, stdout.String(), stderr.String()))
					return checkOutcome(code, stdout.String(), stderr.String())
				}); msg != "" {
					t.Fatalf("%s: %s", b, msg)
				}
			}
			if outs[0] != outs[1] {
				t.Fatalf("%s: the same input gave different output:\n%s\n---\n%s", b, outs[0], outs[1])
			}
		}
	})
}

// fuzzDeadline is how long one input may take. Real specs compile in
// milliseconds; an input that takes seconds is a hang to fix.
const fuzzDeadline = 5 * time.Second

// withinDeadline runs check and returns what it says, or a failure when it
// takes longer than d.
func withinDeadline(d time.Duration, check func() string) string {
	done := make(chan string, 1)
	go func() { done <- check() }()
	select {
	case msg := <-done:
		return msg
	case <-time.After(d):
		return fmt.Sprintf("took longer than %v", d)
	}
}

// checkOutcome says what is wrong with how the command ended, or "".
func checkOutcome(code int, stdout, stderr string) string {
	switch {
	case strings.Contains(stderr, "internal error") || strings.Contains(stderr, "goroutine "):
		return stderr
	case code == 0 && stdout == "":
		return "exit 0 with nothing on stdout"
	case code != 0 && stdout != "":
		return fmt.Sprintf("exit %d with output on stdout", code)
	case code != 0 && code != exitBadSpec:
		return fmt.Sprintf("exit %d: %s", code, stderr)
	}
	for _, line := range strings.Split(strings.TrimSuffix(stderr, "\n"), "\n") {
		if line != "" && !diagnosticLine.MatchString(line) {
			return fmt.Sprintf("a diagnostic without its file: %q", line)
		}
	}
	return ""
}

// lintNames are where FuzzLint puts its files: names lint knows, others,
// folders of a legacy cube, hidden and skipped ones.
var lintNames = []string{
	"mlcube.yaml", "platform.yaml", "pipeline.yaml", "values.yaml", "run/kubernetes.yaml",
	"platforms/docker.yaml", "sub/mlcube.yaml", "sub/pipeline.yml", "sub/deeper/x.yaml",
	".hidden.yaml", "testdata/mlcube.yaml", "ci.yml", "sub/platform.yaml", "run/other.yaml",
	"mlops.env", "a/b/c/mlcube.yml",
}

// FuzzLint feeds random trees of files to lint: three files with fuzzed
// content at places layout picks among lintNames. Whatever they hold,
// lint must not crash or report an internal error; it exits 0, 1 or 2;
// its JSON report parses, every problem names a file of the tree, with
// a line and column unless it is about the file as a whole; and the same
// tree gives the same bytes twice.
func FuzzLint(f *testing.F) {
	if testing.Short() {
		f.Skip("skipped with -short: its seeds are every example and corpus case, about 3 s")
	}
	for _, root := range []string{filepath.Join(repoRoot, "examples"), filepath.Join(repoRoot, "testdata", "bad")} {
		dirs, _ := os.ReadDir(root)
		for i, d := range dirs {
			dir := filepath.Join(root, d.Name())
			f.Add(uint16(i*7+0x210), readOr(filepath.Join(dir, "mlcube.yaml")), readOr(filepath.Join(dir, "platform.yaml")),
				readOr(filepath.Join(dir, "pipeline.yaml")))
		}
	}
	f.Fuzz(func(t *testing.T, layout uint16, a, b, c []byte) {
		dir := t.TempDir()
		for i, body := range [][]byte{a, b, c} {
			if body == nil {
				continue
			}
			path := filepath.Join(dir, lintNames[int(layout>>(4*i))%len(lintNames)])
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, body, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		var outs []string
		for range 2 {
			msg := withinDeadline(4*fuzzDeadline, func() string {
				var stdout, stderr bytes.Buffer
				code := run([]string{"mlcube-compile", "lint", "--format", "json", dir}, &stdout, &stderr)
				outs = append(outs, fmt.Sprint(code, stdout.String(), stderr.String()))
				return checkLintOutcome(dir, code, stdout.String(), stderr.String())
			})
			if msg != "" {
				t.Fatal(msg)
			}
		}
		if outs[0] != outs[1] {
			t.Fatalf("two lints of one tree differ:\n%s\n---\n%s", outs[0], outs[1])
		}
	})
}

// checkLintOutcome says what is wrong with how lint ended, or "".
func checkLintOutcome(dir string, code int, stdout, stderr string) string {
	if strings.Contains(stderr, "internal error") || strings.Contains(stderr, "goroutine ") {
		return stderr
	}
	if code == 2 {
		return "" // no spec file found, a usage error
	}
	if code != 0 && code != 1 {
		return fmt.Sprintf("exit %d: %s", code, stderr)
	}
	var problems []struct {
		File         string
		Line, Column int
		Field        string
		Message      string
	}
	if err := json.Unmarshal([]byte(stdout), &problems); err != nil {
		return fmt.Sprintf("the JSON report does not parse: %v\n%s", err, stdout)
	}
	for _, p := range problems {
		if !strings.HasPrefix(p.File, dir) || p.Message == "" || (p.Line == 0) != (p.Column == 0) {
			return fmt.Sprintf("a problem without its file, message or place: %+v", p)
		}
	}
	return ""
}
