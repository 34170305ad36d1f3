package lint

import (
	"path/filepath"
	"sort"

	"github.com/mlcube-compile/mlcube-compile/compiler"
)

// ofKind lists the files of a kind, sorted.
func (s *fileSet) ofKind(kind compiler.FileKind) []string {
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
func (s *fileSet) inDir(kind compiler.FileKind, dir string) []string {
	var out []string
	for _, p := range s.ofKind(kind) {
		if filepath.Dir(p) == dir {
			out = append(out, p)
		}
	}
	return out
}

// unit is one compilation lint runs, or one platform file checked on
// its own.
type unit struct {
	opts compiler.Options
	// platformOnly is a platform file with nothing beside it to compile.
	platformOnly string
}

// name is the file a unit is about, for problems with the unit itself.
func (u unit) name() string {
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
func (s *fileSet) units() []unit {
	var out []unit
	used := map[string]bool{}
	withPlatforms := func(opts compiler.Options, platforms []string) {
		if len(platforms) == 0 {
			out = append(out, unit{opts: opts})
		}
		for _, p := range platforms {
			o := opts
			o.Platform = p
			used[p] = true
			out = append(out, unit{opts: o})
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
			out = append(out, unit{platformOnly: p})
		}
	}
	return out
}

// readByLegacyCube reports whether a platform file is the
// platforms/docker.yaml that a legacy cube above it reads for its image.
func (s *fileSet) readByLegacyCube(p string) bool {
	dir := filepath.Dir(p)
	return filepath.Base(p) == "docker.yaml" && filepath.Base(dir) == "platforms" && len(s.inDir(compiler.CubeFile, filepath.Dir(dir))) > 0
}
