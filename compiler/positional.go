package compiler

import (
	"path/filepath"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/source"
)

// PathAlone is what a path given without a flag is, as helm template DIR
// and kustomize build DIR take one: a folder is its pipeline.yaml when it
// has one (the pipeline says what to run, and its cube is beside it),
// else a cube folder, which the compilation reads as --mlcube does; a
// file is what Classify says it is. The path to give the flag comes back
// with its kind; NotASpec and "" when nothing is there.
func PathAlone(path string) (FileKind, string) {
	files := source.New(nil)
	info, err := files.Stat(path)
	switch {
	case err != nil:
		return NotASpec, ""
	case !info.IsDir():
		return Classify(path), path
	}
	for _, name := range pipelineNames {
		if isFile(files, filepath.Join(path, name)) {
			return TaskFile, filepath.Join(path, name)
		}
	}
	return CubeFile, path
}

// pipelineNames are the names of the pipeline file a folder is read as.
var pipelineNames = []string{"pipeline.yaml", "pipeline.yml"}
