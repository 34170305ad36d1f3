package compiler

import (
	"cmp"
	"path/filepath"
	"strings"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/source"
	"github.com/mlcube-compile/mlcube-compile/compiler/internal/spec"
)

// Pairing is what Pair decided: the options with the files the flags left
// out filled in, and the platform file it chose, if it chose one.
type Pairing struct {
	Options Options
	// Platform is the platform file Pair chose because of where it is;
	// empty when the options named one, or none is there.
	Platform string
	// Beside says where Platform is: "beside the pipeline", "beside the
	// cube", or "the legacy cube's platforms/docker.yaml".
	Beside string
	// Unplaced: the pipeline is read from standard input, which has no
	// folder, so no platform file was looked for.
	Unplaced bool
}

// The places Pair looks for a platform file, in order.
var platformNames = []string{"platform.yaml", "platform.yml"}

// Pair is the one rule for the files a compilation reads when the
// command line leaves them out; compile, graph and lint all follow it, so
// that lint checks what a user compiles.
//
//   - With nothing named (no --mlcube, no --task, no NAME=PATH, which
//     only a cube run takes), the pipeline is the current folder's
//     pipeline.yaml (or pipeline.yml) when it has one, as the argument
//     "." reads it (PathAlone); else the current folder is the cube.
//   - A pipeline's cube is in the pipeline's own folder: with --task
//     x/pipeline.yaml and no --mlcube, the cube is x/mlcube.yaml (its
//     cubes:, if it has them, name their own folders). A legacy invoke
//     file in a run/ folder belongs to the cube in the folder above. A
//     --mlcube given, "." included, is used as given.
//   - The platform file is platform.yaml (or platform.yml) beside the
//     pipeline, or beside the cube when there is no pipeline file; for a
//     legacy invoke file, the cube's platforms/docker.yaml. A --platform
//     given is used as given.
//   - A pipeline on standard input (--task -) has no folder: its cube
//     is the current folder's unless --mlcube says otherwise, and no
//     platform file is read unless --platform names one.
//
// A --task that names tasks of the cube, not a file, pairs as no pipeline
// file does. Pair reads nothing but whether files exist, through opts.FS,
// and, for a --task that is a bare name and a file too, the cube's task
// names.
func Pair(opts Options) Pairing { return Load(opts).Pair() }

// pair is Pair, reading through files; tasks are the cube's task names.
func pair(files *source.Files, opts Options, tasks func() []string) Pairing {
	if opts.MLCube == "" && opts.Task == "" && len(opts.Paths) == 0 {
		for _, name := range pipelineNames {
			if isFile(files, name) {
				opts.Task = name
				break
			}
		}
	}
	out := Pairing{Options: opts}
	if out.Options.MLCube == "" {
		out.Options.MLCube = "."
	}
	dir, beside := filepath.Dir(files.CubeFile(out.Options.MLCube)), "beside the cube"
	var candidates []candidate
	if opts.Task == StdinName {
		out.Unplaced = opts.Platform == ""
		return out
	}
	if isTaskFile(files, opts, tasks) {
		dir, beside = filepath.Dir(opts.Task), "beside the pipeline"
		root := legacyRoot(files, dir)
		if opts.MLCube != "" {
			root = ""
		} else {
			out.Options.MLCube = cmp.Or(root, dir)
		}
		if root != "" {
			candidates = append(candidates, candidate{filepath.Join(root, "platforms", "docker.yaml"),
				"the legacy cube's platforms/docker.yaml"})
		}
	}
	for _, name := range platformNames {
		candidates = append(candidates, candidate{filepath.Join(dir, name), beside})
	}
	if opts.Platform != "" {
		return out
	}
	for _, c := range candidates {
		if isFile(files, c.path) {
			out.Options.Platform, out.Platform, out.Beside = c.path, c.path, c.beside
			break
		}
	}
	return out
}

// candidate is a platform file Pair may choose, and where it is.
type candidate struct{ path, beside string }

// isTaskFile tells a --task that names a file from one that names tasks
// of the cube, by spec.NamesTasks: a file that is there, unless its bare
// name is a task of the cube too, or a path or YAML name that is not
// (whose reading then says so).
func isTaskFile(files *source.Files, opts Options, tasks func() []string) bool {
	return opts.Task != "" && !spec.NamesTasks(files, opts.Task, tasks)
}

// legacyRoot is the folder above run/ when dir is the run/ folder of a
// legacy cube, which holds its run files, or a folder in it
// (run/alice/); "" otherwise.
func legacyRoot(files *source.Files, dir string) string {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if filepath.Base(d) == "run" && isFile(files, filepath.Join(filepath.Dir(d), "mlcube.yaml")) {
			return filepath.Dir(d)
		}
		if filepath.Dir(d) == d || !strings.Contains(d, "run") {
			return ""
		}
	}
}

// isFile reports whether path is there and is not a folder.
func isFile(files *source.Files, path string) bool {
	info, err := files.Stat(path)
	return err == nil && !info.IsDir()
}
