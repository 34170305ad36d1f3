package compiler

import (
	"path/filepath"
	"slices"
	"strings"

	"cuelang.org/go/cue/ast"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/source"
	"github.com/mlcube-compile/mlcube-compile/compiler/internal/spec"
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
	// OtherYAML is a YAML file that is none of the above: another tool's,
	// or a values file; lint skips it and counts it.
	OtherYAML
	// KubernetesObject is YAML with a top-level apiVersion and kind, such
	// as compiled output; lint skips it and counts it too.
	KubernetesObject
)

// Classify tells what a file is: by its name (mlcube.yaml,
// platform.yaml, pipeline.yaml, and .yml), else by its top-level keys. A
// YAML file that does not parse is told by the keys its lines show, so
// that a broken spec is compiled and its mistake reported; one whose
// keys are not ours, like a YAML file that parses and is not ours, is
// OtherYAML. A Kubernetes manifest (top-level apiVersion and kind, which
// no spec has) is OtherYAML whatever its name: a compiled Tekton
// Pipeline written to pipeline.yaml is output, not a spec.
func Classify(path string) FileKind { return classify(source.New(nil), path) }

// classify is Classify, reading through files.
func classify(files *source.Files, path string) FileKind {
	base := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(path), ".yaml"), ".yml")
	if ext := filepath.Ext(path); ext != ".yaml" && ext != ".yml" {
		return NotASpec
	}
	if kind := classifyName(base); kind != NotASpec {
		if _, _, manifest := source.Manifest(files.RawTopLevel(path)); manifest {
			return KubernetesObject
		}
		return kind
	}
	f, _ := files.ReadYAML(path, source.Flag("lint"))
	if f == nil {
		return classifyRaw(files.RawTopLevel(path))
	}
	return classifyTree(f)
}

// CompactCubeFile is the compact form of an MLCube 1.0 cube, which lint
// reads although its name starts with a dot.
const CompactCubeFile = source.CompactCubeFile

// classifyName tells a spec by its file name without the extension;
// NotASpec when the name does not tell.
func classifyName(base string) FileKind {
	switch {
	case base == "mlcube", base+".yaml" == CompactCubeFile, strings.HasPrefix(base, "container_config"):
		return CubeFile
	case base == "platform":
		return PlatformFile
	case base == "pipeline":
		return TaskFile
	}
	return NotASpec
}

// classifyRaw tells a spec that does not parse by the top-level keys its
// lines show, by the rules of classifyTree; a platform file is one whose
// every key is a platform file's.
func classifyRaw(keys []source.RawKey) FileKind {
	byName := map[string]source.RawKey{}
	for _, k := range keys {
		byName[k.Name] = k
	}
	if kind, ok := schemaTypes[byName["schema_type"].Value]; ok {
		return kind
	}
	if _, _, manifest := source.Manifest(keys); manifest {
		return KubernetesObject
	}
	_, docker := byName["docker"]
	_, name := byName["name"]
	switch {
	case byName["steps"].Mapping:
		return TaskFile
	case byName["tasks"].Mapping && (docker || name):
		return CubeFile
	case len(keys) > 0 && allPlatformKeys(keys):
		return PlatformFile
	}
	return OtherYAML
}

// PlatformKeys are the keys of a platform file that hold a setting, by
// their dotted paths (storage.pvc, gpu.nodeSelector), in the schema's
// order.
func PlatformKeys() []string { return spec.PlatformKeys() }

// allPlatformKeys reports whether every key is a field of the platform
// schema.
func allPlatformKeys(keys []source.RawKey) bool {
	fields := spec.PlatformFields()
	for _, k := range keys {
		if !slices.Contains(fields, k.Name) {
			return false
		}
	}
	return true
}

// SchemaType is the schema_type a file of MLCube's 1.0 layout names
// (mlcube_root, mlcube_task, mlcube_invoke, mlcube_platform), read from
// its top-level lines; "" for a file that names none or cannot be read.
func SchemaType(path string) string { return schemaType(source.New(nil), path) }

// schemaType is SchemaType, reading through files.
func schemaType(files *source.Files, path string) string {
	if ext := filepath.Ext(path); ext != ".yaml" && ext != ".yml" {
		return ""
	}
	for _, k := range files.RawTopLevel(path) {
		if k.Name == "schema_type" {
			return k.Value
		}
	}
	return ""
}

// schemaTypes are the kinds of the 1.0 layout's files, by schema_type.
var schemaTypes = map[string]FileKind{"mlcube_root": CubeFile, "mlcube_platform": PlatformFile,
	"mlcommons_box_platform": PlatformFile, "mlcube_invoke": TaskFile}

// classifyTree tells a spec by its top-level keys.
func classifyTree(f *ast.File) FileKind {
	if kind, ok := schemaTypes[source.TopLevelString(f, "schema_type")]; ok {
		return kind
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
	return OtherYAML
}
