package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The bad-input corpus: each folder under testdata/bad is one case, with
// its spec files and stderr.golden, the exact stderr it must give. The
// command runs with --mlcube on the case's folder, --platform
// platform.yaml and --task pipeline.yaml when those files exist, or with
// the arguments an args file gives, one a line, $CASE standing for the
// folder. A setup file makes what is not worth committing, one a line:
//
//	sparse FILE BYTES   a file of that size, all zeros but for a YAML start
//	dir PATH            an empty folder
//
// go test -update rewrites the golden files.

// diagnosticLine is how each stderr line of a bad spec must look:
// file[:line:col]: [warning: |note: ]field: message, or a whole-file message.
var diagnosticLine = regexp.MustCompile(`^[^:\s]+(:\d+:\d+)?: (warning: |note: )?([^\s"]|"([^"\\]|\\.)*")+: .+$`)

// cueText is what CUE's own messages hold and a user's must not: every
// refusal of the schema is said in words (a pattern in its @help).
var cueText = regexp.MustCompile(`incomplete value|conflicting values|empty disjunction|out of bound|` +
	`does not satisfy|not allowed|=~|!~|_\|_| & |MaxRunes|mismatched types`)

func TestBadInputCorpus(t *testing.T) {
	root := filepath.Join(repoRoot, "testdata", "bad")
	cases, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) < 60 {
		t.Errorf("%d cases in %s, want at least 60", len(cases), root)
	}
	for _, c := range cases {
		t.Run(c.Name(), func(t *testing.T) {
			src := filepath.Join(root, c.Name())
			dir := copyCase(t, src)
			stdout, stderr, code := compileArgs(t, caseArgs(t, src, dir)...)
			stderr = strings.ReplaceAll(stderr, dir+"/", "")
			stderr = strings.ReplaceAll(stderr, dir, ".")
			if code != exitBadSpec {
				t.Errorf("exit %d, want %d", code, exitBadSpec)
			}
			if stdout != "" {
				t.Errorf("stdout is not empty: %d bytes", len(stdout))
			}
			for _, bad := range []string{"panic", "goroutine ", "internal error", ".go:"} {
				if strings.Contains(stderr, bad) {
					t.Errorf("stderr shows %q:\n%s", bad, stderr)
				}
			}
			for _, line := range strings.Split(strings.TrimSpace(stderr), "\n") {
				if !diagnosticLine.MatchString(line) {
					t.Errorf("not file:line:col: field: message: %q", line)
				}
				if m := cueText.FindString(line); m != "" {
					t.Errorf("CUE's words %q, not ours: %q", m, line)
				}
			}
			compareGolden(t, filepath.Join(src, "stderr.golden"), stderr)
		})
	}
}

// longAgo is the time the files of a case were last written.
var longAgo = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)

// copyCase copies a case into a temporary folder and runs its setup.
func copyCase(t *testing.T, src string) string {
	t.Helper()
	dir := t.TempDir()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		switch {
		case d.IsDir():
			return os.MkdirAll(filepath.Join(dir, rel), 0o755)
		case rel == "stderr.golden" || rel == "args" || rel == "setup":
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		// Written long ago, as a spec in a repository is: a file emptied
		// moments ago is said to be perhaps the output's (output.go).
		dst := filepath.Join(dir, rel)
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			return err
		}
		return os.Chtimes(dst, longAgo, longAgo)
	})
	if err != nil {
		t.Fatal(err)
	}
	setup, err := os.ReadFile(filepath.Join(src, "setup"))
	if err != nil {
		return dir
	}
	for _, line := range strings.Split(strings.TrimSpace(string(setup)), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) == 3 && f[0] == "sparse":
			size, _ := strconv.ParseInt(f[2], 10, 64)
			err = makeSparse(filepath.Join(dir, f[1]), size)
		case len(f) == 2 && f[0] == "dir":
			err = os.MkdirAll(filepath.Join(dir, f[1]), 0o755)
		default:
			t.Fatalf("setup: cannot read %q", line)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// makeSparse makes a file of size bytes that starts like a spec.
func makeSparse(path string, size int64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := f.WriteString("name: huge\n"); err != nil {
		f.Close()
		return err
	}
	if err := f.Truncate(size); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// caseArgs builds the command line for a case.
func caseArgs(t *testing.T, src, dir string) []string {
	args := []string{"mlcube-compile"}
	if raw, err := os.ReadFile(filepath.Join(src, "args")); err == nil {
		for _, a := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
			args = append(args, strings.ReplaceAll(strings.TrimSpace(a), "$CASE", dir))
		}
		return args
	}
	args = append(args, "--mlcube", dir)
	for flag, file := range map[string]string{"--platform": "platform.yaml", "--task": "pipeline.yaml"} {
		if _, err := os.Lstat(filepath.Join(dir, file)); err == nil {
			args = append(args, flag, filepath.Join(dir, file))
		}
	}
	return args
}
