package lint

import (
	"path/filepath"
	"slices"
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
	// alone is a cube compiled with no pipeline file (every task of it,
	// as mlcube-compile -m DIR compiles it); aloneNotes weighs its
	// errors against the pipelines that read the cube.
	alone bool
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

// units pairs the files into compilations. Each cube and each pipeline
// or invoke file compiles as the command compiles it when given only that
// file (compiler.Pair: the cube of the pipeline's folder, a legacy invoke
// file's cube above run/, the platform.yaml beside it), and with each
// other platform file beside it, so that every platform file is checked
// with what sits beside it. A platform file no compilation reads is
// checked on its own.
func (s *fileSet) units() []unit {
	var out []unit
	used := map[string]bool{}
	pair := func(opts compiler.Options, dir string) {
		paired := compiler.Pair(opts).Options
		alone := opts.Task == "" && paired.Task == ""
		platforms := s.inDir(compiler.PlatformFile, dir)
		if paired.Platform != "" && !slices.Contains(platforms, paired.Platform) {
			platforms = append([]string{paired.Platform}, platforms...)
		}
		if len(platforms) == 0 {
			out = append(out, unit{opts: paired, alone: alone})
		}
		for _, p := range platforms {
			o := paired
			o.Platform = p
			used[p] = true
			out = append(out, unit{opts: o, alone: alone})
		}
	}
	for _, cube := range s.ofKind(compiler.CubeFile) {
		pair(compiler.Options{MLCube: cube}, filepath.Dir(cube))
	}
	for _, task := range s.ofKind(compiler.TaskFile) {
		pair(compiler.Options{Task: asFile(task)}, filepath.Dir(task))
	}
	for _, p := range s.ofKind(compiler.PlatformFile) {
		if !used[p] && !s.readByLegacyCube(p) {
			out = append(out, unit{platformOnly: p})
		}
	}
	return out
}

// asFile keeps a task file lint found a file: a bare name (train, which
// a --task glob matched in the folder linted) that is a task of the cube
// too would name the task, as --task train does (compiler.Pair).
func asFile(task string) string {
	if ext := filepath.Ext(task); filepath.Dir(task) != "." || ext == ".yaml" || ext == ".yml" {
		return task
	}
	return "." + string(filepath.Separator) + task
}

// readByLegacyCube reports whether a platform file is in the platforms/
// folder of a legacy cube above it: its docker.yaml, which the cube
// reads for its image, or a file of MLCube's other runners (singularity,
// ssh, podman), which Kubernetes has no use for.
func (s *fileSet) readByLegacyCube(p string) bool {
	dir := filepath.Dir(p)
	return filepath.Base(dir) == "platforms" && len(s.inDir(compiler.CubeFile, filepath.Dir(dir))) > 0
}
