package lint

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/mlcube-compile/mlcube-compile/compiler"
)

// skippedDirs are never walked into: tools' and dependencies' folders, and
// testdata, which Go tools skip too. A path given on the command line is
// linted wherever it is.
var skippedDirs = map[string]bool{"node_modules": true, "vendor": true, "testdata": true}

// fileSet is every spec file lint found, by kind and by folder.
type fileSet struct {
	files map[string]compiler.FileKind
	// skipped are the YAML files that are none of ours.
	skipped []string
}

// find walks the paths and classifies every YAML file: by name, by
// the --platform and --task globs (globs.go), then by content (a file
// that does not parse, by the keys its lines show); the YAML files that
// are none of ours are kept as skipped. Hidden files and folders (but a
// compact cube's .mlcube.yaml), and those --exclude matches, are
// skipped; symbolic links to files are followed. g keeps which globs
// matched.
func find(paths []string, opts Options, g *globs) (*fileSet, error) {
	set := &fileSet{files: map[string]compiler.FileKind{}}
	excluded := func(root, path string) bool {
		return slices.ContainsFunc(opts.Exclude, func(glob string) bool { return g.match(glob, root, path) })
	}
	classify := func(root, path string) {
		kind := compiler.Classify(path)
		switch {
		case g.match(opts.TaskGlob, root, path):
			kind = compiler.TaskFile
		case g.match(opts.PlatformGlob, root, path):
			kind = compiler.PlatformFile
		}
		switch kind {
		case compiler.NotASpec:
		case compiler.OtherYAML, compiler.KubernetesObject:
			set.skipped = append(set.skipped, path)
		default:
			set.files[path] = kind
		}
	}
	for _, root := range paths {
		info, err := os.Stat(root)
		if err != nil {
			return nil, fmt.Errorf("cannot lint %s: %w", root, unwrapPathError(err))
		}
		if !info.IsDir() {
			classify(filepath.Dir(root), root)
			continue
		}
		err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			hidden := d.Name()[0] == '.' && (d.IsDir() || d.Name() != compiler.CompactCubeFile)
			skipped := path != root && (hidden || excluded(root, path))
			switch {
			case err != nil:
				return err
			case d.IsDir() && path != root && (skippedDirs[d.Name()] || skipped):
				return filepath.SkipDir
			case skipped || d.IsDir():
				return nil
			case d.Type()&fs.ModeSymlink != 0:
				if info, err := os.Stat(path); err == nil && info.Mode().IsRegular() {
					classify(root, path)
				}
			case d.Type().IsRegular():
				classify(root, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return set, nil
}

// unwrapPathError is err without the operation and path a *fs.PathError
// adds, which the message says in its own words.
func unwrapPathError(err error) error {
	var pathErr *fs.PathError
	if errors.As(err, &pathErr) {
		return pathErr.Err
	}
	return err
}
