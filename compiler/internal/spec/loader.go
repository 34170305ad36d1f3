package spec

import (
	"path/filepath"

	"cuelang.org/go/cue/ast"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/source"
	"github.com/mlcube-compile/mlcube-compile/diag"
	"github.com/mlcube-compile/mlcube-compile/schema"
)

// loader reads spec files once each and keeps their problems.
type loader struct {
	sc    *schema.Context
	files *source.Files
	diags diag.Diagnostics
	cubes map[string]*Cube
	// incomplete is Pipeline.Incomplete: a part the steps rest on was
	// not read.
	incomplete bool
}

func newLoader(sc *schema.Context, files *source.Files) *loader {
	return &loader{sc: sc, files: files, cubes: map[string]*Cube{}}
}

func (l *loader) errorf(code diag.Code, at diag.Loc, format string, args ...any) {
	l.diags = append(l.diags, diag.Errorf(code, at, format, args...))
}

// add keeps diags and reports whether they hold no error.
func (l *loader) add(diags diag.Diagnostics) bool {
	l.diags = append(l.diags, diags...)
	return !diags.HasErrors()
}

// readYAML reads and parses a spec file named by via; nil after a problem.
func (l *loader) readYAML(path string, via diag.Loc) *ast.File {
	f, diags := l.files.ReadYAML(path, via)
	l.add(diags)
	return f
}

// cube loads the cube in a folder or file, in either layout, named by the
// flag or key via. A legacy root takes its image from
// platforms/docker.yaml beside it.
func (l *loader) cube(path string, via diag.Loc) *Cube {
	file := filepath.Clean(l.files.CubeFile(path))
	if c, ok := l.cubes[file]; ok {
		return c
	}
	l.cubes[file] = nil
	f := l.readYAML(file, via)
	if f == nil {
		return nil
	}
	if source.TopLevelMapping(f, "steps") {
		l.diags = append(l.diags, diag.Errorf(diag.WrongFile, via.At(diag.Pos{File: file, Line: 1, Col: 1}),
			"%s is a pipeline file (it has steps:), not a cube", file).WithFix("give it with --task"))
		return nil
	}
	var c *Cube
	if IsContainerConfig(f) {
		var diags diag.Diagnostics
		c, diags = decodeContainerConfig(l.sc, f)
		l.add(diags)
	} else if source.TopLevelString(f, "schema_type") == "mlcube_root" {
		docker := l.legacyDocker(filepath.Join(filepath.Dir(file), legacyPlatformFile))
		c = l.legacyRoot(f, docker, nil)
	} else if filepath.Base(file) == source.CompactCubeFile {
		var diags diag.Diagnostics
		c, diags = decodeCompactRoot(l.sc, l.files, f, l.legacyDocker(filepath.Join(filepath.Dir(file), legacyPlatformFile)))
		l.add(diags)
	} else {
		var diags diag.Diagnostics
		c, diags = decodeCube(l.sc, f)
		l.add(diags)
	}
	l.cubes[file] = c
	return c
}

// legacyRoot reads a legacy root file with what its docker platform file
// gives, and its run files or invoke alone.
func (l *loader) legacyRoot(f *ast.File, docker *legacyDocker, invoke *ast.File) *Cube {
	if f == nil {
		return nil
	}
	c, diags := decodeLegacyRoot(l.sc, l.files, f, docker, invoke)
	l.add(diags)
	return c
}

// legacyDocker reads a legacy docker platform file, if there is one.
func (l *loader) legacyDocker(file string) *legacyDocker {
	if _, err := l.files.Stat(file); err != nil {
		return nil
	}
	f := l.readYAML(file, source.Flag("--mlcube"))
	if f == nil {
		return nil
	}
	docker, diags := decodeLegacyPlatform(l.sc, f)
	l.add(diags)
	return docker
}

// pipelineBeside reports, as an error at via, a cube file that is not
// there in a folder that holds a pipeline file, when no pipeline was
// given: the folder was given as a cube, and the pipeline is what to
// give.
func (l *loader) pipelineBeside(file string, via diag.Loc) bool {
	if _, err := l.files.Stat(file); err == nil {
		return false
	}
	pipeline := filepath.Join(filepath.Dir(file), "pipeline.yaml")
	if info, err := l.files.Stat(pipeline); err != nil || info.IsDir() {
		return false
	}
	l.diags = append(l.diags, diag.Errorf(diag.MissingFile, via.At(diag.Pos{File: file}),
		"cannot read: no such file; the folder holds %s, a pipeline", pipeline).WithFix("give it with --task "+pipeline))
	return true
}
