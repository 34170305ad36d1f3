package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/mlcube-compile/mlcube-compile/compiler"
)

// skippedDirs are never walked into: tools' and dependencies' folders, and
// testdata, which Go tools skip too. A path given on the command line is
// linted wherever it is.
var skippedDirs = map[string]bool{"node_modules": true, "vendor": true, "testdata": true}

// specSet is every spec file lint found, by kind and by folder.
type specSet struct {
	files map[string]compiler.FileKind
}

// findSpecs walks the paths and classifies every YAML file: by name, by
// the --platform and --task globs, then by content. Hidden files and
// folders are skipped; symbolic links to files are followed.
func findSpecs(paths []string, platformGlob, taskGlob string) (*specSet, error) {
	set := &specSet{files: map[string]compiler.FileKind{}}
	classify := func(path string) {
		kind := compiler.Classify(path)
		switch {
		case globMatch(taskGlob, path):
			kind = compiler.TaskFile
		case globMatch(platformGlob, path):
			kind = compiler.PlatformFile
		}
		if kind != compiler.NotASpec {
			set.files[path] = kind
		}
	}
	for _, root := range paths {
		info, err := os.Stat(root)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			classify(root)
			continue
		}
		err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			hidden := path != root && d.Name()[0] == '.'
			switch {
			case err != nil:
				return err
			case d.IsDir() && path != root && (skippedDirs[d.Name()] || hidden):
				return filepath.SkipDir
			case hidden || d.IsDir():
				return nil
			case d.Type()&fs.ModeSymlink != 0:
				if info, err := os.Stat(path); err == nil && info.Mode().IsRegular() {
					classify(path)
				}
			case d.Type().IsRegular():
				classify(path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return set, nil
}

// globMatch matches a glob against a file's path or its name.
func globMatch(glob, path string) bool {
	if glob == "" {
		return false
	}
	if ok, _ := filepath.Match(glob, path); ok {
		return true
	}
	ok, _ := filepath.Match(glob, filepath.Base(path))
	return ok
}

// ofKind lists the files of a kind, sorted.
func (s *specSet) ofKind(kind compiler.FileKind) []string {
	var out []string
	for p, k := range s.files {
		if k == kind {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// inDir lists the files of a kind in one folder.
func (s *specSet) inDir(kind compiler.FileKind, dir string) []string {
	var out []string
	for _, p := range s.ofKind(kind) {
		if filepath.Dir(p) == dir {
			out = append(out, p)
		}
	}
	return out
}

// lintUnit is one compilation lint runs, or one platform file checked on
// its own.
type lintUnit struct {
	opts compiler.Options
	// platformOnly is a platform file with nothing beside it to compile.
	platformOnly string
}

// name is the file a unit is about, for problems with the unit itself.
func (u lintUnit) name() string {
	switch {
	case u.platformOnly != "":
		return u.platformOnly
	case u.opts.Task != "":
		return u.opts.Task
	}
	return u.opts.MLCube
}

// units pairs the files into compilations. Each cube compiles on its own
// with the first platform file beside it. Each pipeline or invoke file
// compiles with the cube of its folder (a legacy invoke file with the root
// above run/) and with each platform file beside it. A platform file no
// compilation reads is checked on its own.
func (s *specSet) units() []lintUnit {
	var out []lintUnit
	used := map[string]bool{}
	withPlatforms := func(opts compiler.Options, platforms []string) {
		if len(platforms) == 0 {
			out = append(out, lintUnit{opts: opts})
		}
		for _, p := range platforms {
			o := opts
			o.Platform = p
			used[p] = true
			out = append(out, lintUnit{opts: o})
		}
	}
	for _, cube := range s.ofKind(compiler.CubeFile) {
		platforms := s.inDir(compiler.PlatformFile, filepath.Dir(cube))
		if len(platforms) > 1 {
			platforms = platforms[:1]
		}
		withPlatforms(compiler.Options{MLCube: cube}, platforms)
	}
	for _, task := range s.ofKind(compiler.TaskFile) {
		dir := filepath.Dir(task)
		root := dir
		if filepath.Base(dir) == "run" && len(s.inDir(compiler.CubeFile, filepath.Dir(dir))) > 0 {
			root = filepath.Dir(dir)
		}
		platforms := s.inDir(compiler.PlatformFile, dir)
		if legacy := filepath.Join(root, "platforms", "docker.yaml"); root != dir && s.files[legacy] == compiler.PlatformFile {
			platforms = []string{legacy}
		}
		withPlatforms(compiler.Options{MLCube: root, Task: task}, platforms)
	}
	for _, p := range s.ofKind(compiler.PlatformFile) {
		if !used[p] && !s.readByLegacyCube(p) {
			out = append(out, lintUnit{platformOnly: p})
		}
	}
	return out
}

// readByLegacyCube reports whether a platform file is the
// platforms/docker.yaml that a legacy cube above it reads for its image.
func (s *specSet) readByLegacyCube(p string) bool {
	dir := filepath.Dir(p)
	return filepath.Base(p) == "docker.yaml" && filepath.Base(dir) == "platforms" && len(s.inDir(compiler.CubeFile, filepath.Dir(dir))) > 0
}
