package compiler

import (
	"os"
	"path/filepath"

	"github.com/mlcube-compile/mlcube-compile/schema"
)

// loader reads spec files once each and records their problems.
type loader struct {
	s     *schema.Schema
	diags *Diagnostics
	cubes map[string]*cube
}

func newLoader(s *schema.Schema, diags *Diagnostics) *loader {
	return &loader{s: s, diags: diags, cubes: map[string]*cube{}}
}

// cube loads the cube in a folder or file, in either layout, named by the
// flag or key via. A legacy root takes its image from
// platforms/docker.yaml beside it.
func (l *loader) cube(path, via string) *cube {
	file := filepath.Clean(cubeFile(path))
	if c, ok := l.cubes[file]; ok {
		return c
	}
	l.cubes[file] = nil
	f, ok := readYAML(file, via, l.diags)
	if !ok {
		return nil
	}
	var c *cube
	if topLevelString(f, "schema_type") == "mlcube_root" {
		image, pos := l.legacyImage(filepath.Join(filepath.Dir(file), legacyPlatformFile))
		c = decodeLegacyRoot(l.s, f, image, pos, nil, l.diags)
	} else {
		c = decodeCube(l.s, f, l.diags)
	}
	l.cubes[file] = c
	return c
}

// legacyImage reads the image of a legacy docker platform file, if there is one.
func (l *loader) legacyImage(file string) (string, Pos) {
	if _, err := os.Stat(file); err != nil {
		return "", Pos{}
	}
	f, ok := readYAML(file, "--mlcube", l.diags)
	if !ok {
		return "", Pos{}
	}
	return decodeLegacyPlatform(l.s, f, l.diags)
}
