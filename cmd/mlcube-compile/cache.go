package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// dirCache is lint's --cache DIR: one file per key, under a folder named
// by the key's first two hex digits, as Go's build cache lays them out.
// Writes go to a temporary file renamed into place, so that a reader (or
// another lint running at once) never sees half an entry.
type dirCache struct{ dir string }

// openCache makes the cache folder when it is not there.
func openCache(dir string) (*dirCache, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("--cache: %w", err)
	}
	return &dirCache{dir: dir}, nil
}

func (c *dirCache) path(key string) string {
	return filepath.Join(c.dir, key[:2], key)
}

// Get reads an entry; any failure is a miss.
func (c *dirCache) Get(key string) ([]byte, bool) {
	if len(key) < 3 {
		return nil, false
	}
	raw, err := os.ReadFile(c.path(key))
	return raw, err == nil
}

// Put writes an entry atomically.
func (c *dirCache) Put(key string, value []byte) error {
	if len(key) < 3 {
		return fmt.Errorf("cache key %q too short", key)
	}
	dir := filepath.Dir(c.path(key))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(value)
	cerr := tmp.Close()
	if werr != nil || cerr != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing the cache: %v %v", werr, cerr)
	}
	if err := os.Rename(tmp.Name(), c.path(key)); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

// cacheVersion names this binary for lint's cache. A build stamped with
// a commit of a clean tree is named by its version; any other (a
// modified or dirty tree, a devel build, go run, a test binary) by the SHA-256 of its own
// executable, so that no change to the code reads another build's
// results.
func cacheVersion() (string, error) {
	v := buildVersion()
	clean := true
	for _, mark := range []string{"unknown commit", "modified", "dirty", "devel"} {
		clean = clean && !strings.Contains(v, mark)
	}
	if clean {
		return "version " + v, nil
	}
	return executableSum()
}

// executableSum is the SHA-256 of the running executable.
func executableSum() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("--cache: naming this build: %w", err)
	}
	f, err := os.Open(exe)
	if err != nil {
		return "", fmt.Errorf("--cache: naming this build: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("--cache: naming this build: %w", err)
	}
	return "executable " + hex.EncodeToString(h.Sum(nil)), nil
}
