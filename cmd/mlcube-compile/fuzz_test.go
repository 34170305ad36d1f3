package main

import (
	"bytes"
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
		for name, body := range map[string][]byte{"mlcube.yaml": cube, "platform.yaml": platform, "pipeline.yaml": pipeline, "mlops.env": env} {
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
			if msg := withinDeadline(fuzzDeadline, func() string {
				var stdout, stderr bytes.Buffer
				code := run(append([]string{"mlcube-compile", "--backend", b}, args...), &stdout, &stderr)
				return checkOutcome(code, stdout.String(), stderr.String())
			}); msg != "" {
				t.Fatalf("%s: %s", b, msg)
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
	return ""
}
