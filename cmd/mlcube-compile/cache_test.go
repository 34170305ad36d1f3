package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLintCache lints the bad corpus and the examples with --cache, twice
// (the second run from the cache), and wants each report byte for byte
// the one lint gives without it, in every format; a cache folder that
// cannot be made is a usage error.
func TestLintCache(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped with -short: it lints the corpus and the examples four times, about 3 s")
	}
	cache := filepath.Join(t.TempDir(), "cache")
	roots := []string{filepath.Join(repoRoot, "testdata", "bad"), filepath.Join(repoRoot, "examples")}
	for _, format := range []string{"text", "json"} {
		args := append([]string{"mlcube-compile", "lint", "--format", format}, roots...)
		want, _, wantCode := compileArgs(t, args...)
		for run := 1; run <= 2; run++ {
			got, stderr, code := compileArgs(t,
				append(append([]string{}, args[:2]...), append([]string{"--cache", cache}, args[2:]...)...)...)
			if code != wantCode || stderr != "" {
				t.Fatalf("%s, run %d: exit %d, want %d; stderr %q", format, run, code, wantCode, stderr)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("%s, run %d with --cache (-want +got):\n%s", format, run, diff)
			}
		}
	}
	entries, err := filepath.Glob(filepath.Join(cache, "*", "*"))
	if err != nil || len(entries) < 100 {
		t.Fatalf("%d entries in the cache (%v)", len(entries), err)
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, code := compileArgs(t, "mlcube-compile", "lint", "--cache", filepath.Join(file, "cache"),
		roots[1]); code != exitUsage {
		t.Errorf("--cache under a file: exit %d, want %d", code, exitUsage)
	}
}

// TestDirCache: an entry written is read back, a missing or short key
// misses, and a rewrite replaces the entry.
func TestDirCache(t *testing.T) {
	c, err := openCache(filepath.Join(t.TempDir(), "c"))
	if err != nil {
		t.Fatal(err)
	}
	key := "abcdef0123"
	if _, ok := c.Get(key); ok {
		t.Fatal("hit in an empty cache")
	}
	for _, v := range []string{"one", "two"} {
		if err := c.Put(key, []byte(v)); err != nil {
			t.Fatal(err)
		}
		if got, ok := c.Get(key); !ok || string(got) != v {
			t.Fatalf("Get = %q, %v; want %q", got, ok, v)
		}
	}
	if _, ok := c.Get("a"); ok || c.Put("a", nil) == nil {
		t.Error("a short key was used")
	}
}
