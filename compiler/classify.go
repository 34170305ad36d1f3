package compiler

import (
	"path/filepath"
	"strings"

	"cuelang.org/go/cue/ast"

	"github.com/mlcube-compile/mlcube-compile/compiler/source"
	"github.com/mlcube-compile/mlcube-compile/compiler/spec"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// FileKind is what a spec file is, as lint finds it.
type FileKind int

// The kinds of spec file.
const (
	// NotASpec is a file mlcube-compile does not read.
	NotASpec FileKind = iota
	// CubeFile is an mlcube.yaml, in either layout.
	CubeFile
	// PlatformFile is a platform file, ours or a legacy docker one.
	PlatformFile
	// TaskFile is a pipeline file or a legacy invoke file.
	TaskFile
)

// Classify tells what a file is: by its name (mlcube.yaml,
// platform.yaml, pipeline.yaml, and .yml), else by its top-level keys. A
// file that cannot be read or parsed and has none of those names is not
// a spec.
func Classify(path string) FileKind {
	base := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(path), ".yaml"), ".yml")
	if ext := filepath.Ext(path); ext != ".yaml" && ext != ".yml" {
		return NotASpec
	}
	switch base {
	case "mlcube":
		return CubeFile
	case "platform":
		return PlatformFile
	case "pipeline":
		return TaskFile
	}
	if strings.HasPrefix(base, "container_config") {
		return CubeFile
	}
	f, _ := source.New(nil).ReadYAML(path, source.Flag("lint"))
	if f == nil {
		return NotASpec
	}
	return classifyTree(f)
}

// classifyTree tells a spec by its top-level keys.
func classifyTree(f *ast.File) FileKind {
	switch source.TopLevelString(f, "schema_type") {
	case "mlcube_root":
		return CubeFile
	case "mlcube_platform":
		return PlatformFile
	case "mlcube_invoke":
		return TaskFile
	}
	switch {
	case spec.IsContainerConfig(f):
		return CubeFile
	case source.TopLevelMapping(f, "steps"):
		return TaskFile
	case source.TopLevelMapping(f, "tasks") && (source.HasTopLevel(f, "docker") || source.HasTopLevel(f, "name")):
		return CubeFile
	case len(f.Decls) > 0 && spec.IsPlatform(f):
		return PlatformFile
	}
	return NotASpec
}

// CheckPlatform checks a platform file that no cube or pipeline beside it
// is compiled with: its schema and what decoding it checks.
func CheckPlatform(path string) diag.Diagnostics { return spec.CheckPlatform(path) }
