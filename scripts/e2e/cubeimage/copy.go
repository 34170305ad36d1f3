package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// copy interprets COPY and ADD of the context's files: each source, a
// file or a folder's contents, goes to the destination, relative to the
// working directory; a file goes into the destination when it ends in /
// or is a folder of the image, and is the destination otherwise. Flags
// (--chown, --from, ...) fail; so does ADD of a URL or an archive,
// which Docker would fetch or unpack.
func (b *builder) copy(in instruction) error {
	words, err := copyWords(in.args)
	if err != nil {
		return err
	}
	srcs, dest := words[:len(words)-1], words[len(words)-1]
	intoDir := strings.HasSuffix(dest, "/")
	if len(srcs) > 1 && !intoDir {
		return fmt.Errorf("more than one source, and %s does not end in /", dest)
	}
	dest = b.abs(dest)
	intoDir = intoDir || b.isDir(dest)
	for _, src := range srcs {
		if in.cmd == "ADD" && (strings.Contains(src, "://") || isArchive(src)) {
			return fmt.Errorf("ADD %s: Docker would fetch or unpack it, which this builder does not", src)
		}
		matches := b.ctx.sources(src)
		if len(matches) == 0 {
			return fmt.Errorf("%s is not in the build context %s (or .dockerignore excludes it)", src, b.context)
		}
		slices.Sort(matches)
		for _, m := range matches {
			if err := b.copySource(m, dest, intoDir || len(matches) > 1); err != nil {
				return err
			}
		}
	}
	return nil
}

// copyWords reads COPY's arguments, JSON or blank-separated.
func copyWords(args string) ([]string, error) {
	words := shellWords(args)
	if strings.HasPrefix(args, "[") {
		if err := json.Unmarshal([]byte(args), &words); err != nil {
			return nil, fmt.Errorf("not a JSON array of strings: %v", err)
		}
	}
	for _, w := range words {
		if strings.HasPrefix(w, "--") {
			return nil, fmt.Errorf("flag %s is not supported", w)
		}
		if strings.Contains(w, "$") {
			return nil, fmt.Errorf("variable references are not supported: %s", w)
		}
	}
	if len(words) < 2 {
		return nil, fmt.Errorf("want SOURCE... DESTINATION")
	}
	return words, nil
}

func isArchive(src string) bool {
	for _, ext := range []string{".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz"} {
		if strings.HasSuffix(src, ext) {
			return true
		}
	}
	return false
}

// copySource copies entry rel of the context ("" for its root): a
// folder's contents into dest, a file into dest (intoDir) or to it.
func (b *builder) copySource(rel, dest string, intoDir bool) error {
	if rel == "" || b.ctx.entries[rel] {
		if err := mkdirs(b.layer, dest); err != nil {
			return err
		}
		inside := b.ctx.under(rel)
		slices.Sort(inside)
		for _, e := range inside {
			target := path.Join(dest, strings.TrimPrefix(strings.TrimPrefix(e, rel), "/"))
			if b.ctx.entries[e] {
				if err := mkdirs(b.layer, target); err != nil {
					return err
				}
				continue
			}
			if err := b.copyFile(e, target); err != nil {
				return err
			}
		}
		return nil
	}
	if intoDir {
		dest = path.Join(dest, path.Base(rel))
	}
	return b.copyFile(rel, dest)
}

// copyFile copies the context's file rel to p in the layer, with the
// mode a git checkout gives it. A symbolic link is copied as a link.
func (b *builder) copyFile(rel, p string) error {
	src := filepath.Join(b.context, filepath.FromSlash(rel))
	if err := mkdirs(b.layer, path.Dir(p)); err != nil {
		return err
	}
	target := filepath.Join(b.layer, filepath.FromSlash(p))
	fi, err := os.Lstat(src)
	if err != nil {
		return err
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		link, err := os.Readlink(src)
		if err != nil {
			return err
		}
		os.Remove(target)
		return os.Symlink(link, target)
	}
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	mode := os.FileMode(0o644)
	if fi.Mode()&0o111 != 0 {
		mode = 0o755
	}
	b.origin[p] = src
	if err := os.WriteFile(target, data, mode); err != nil {
		return err
	}
	return os.Chmod(target, mode)
}
