package source

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"cuelang.org/go/cue/ast"

	"github.com/mlcube-compile/mlcube-compile/diag"
)

// maxSpecBytes bounds the size of one spec file. Real specs are a few
// kilobytes; anything near this is a mistake, not a cube.
const maxSpecBytes = 4 << 20

// Files reads spec files from a file system, each once: a file read
// again (for its disable comments, by another question about the same
// specs) is the bytes read the first time. Paths are given as the user
// wrote them, and messages quote them as written.
type Files struct {
	fsys fs.FS
	mu   sync.Mutex
	read map[string][]byte
}

// New reads from fsys; from the machine's own files (Disk) when fsys is
// nil.
func New(fsys fs.FS) *Files {
	if fsys == nil {
		fsys = Disk
	}
	return &Files{fsys: fsys, read: map[string][]byte{}}
}

// Disk is the machine's file system, taking paths as the operating
// system does: relative to the working folder, or absolute. It is the
// only place the compiler opens a file.
var Disk fs.FS = disk{}

type disk struct{}

func (disk) Open(name string) (fs.File, error)     { return os.Open(name) }
func (disk) Stat(name string) (fs.FileInfo, error) { return os.Stat(name) }

// Read are the paths of the files read, sorted; standard input, which is
// no file to judge comments in again, is not one.
func (fl *Files) Read() []string {
	fl.mu.Lock()
	defer fl.mu.Unlock()
	return slices.DeleteFunc(slices.Sorted(maps.Keys(fl.read)), func(p string) bool { return p == StdinName })
}

// Digest is the sha256, in hex, of the files read: of a line
// "<sha256 of its bytes>  <name>" for each, its name without its folder
// (standard input's StdinName), the lines in byte order. The same files
// give the same digest wherever they are and however a command line
// names them.
func (fl *Files) Digest() string {
	fl.mu.Lock()
	defer fl.mu.Unlock()
	var lines []string
	for path, data := range fl.read {
		sum := sha256.Sum256(data)
		lines = append(lines, hex.EncodeToString(sum[:])+"  "+filepath.Base(path)+"\n")
	}
	slices.Sort(lines)
	sum := sha256.Sum256([]byte(strings.Join(lines, "")))
	return hex.EncodeToString(sum[:])
}

// Stat describes the file at path.
func (fl *Files) Stat(path string) (fs.FileInfo, error) { return fs.Stat(fl.fsys, path) }

// WalkDir walks the folder at path and everything under it, as
// fs.WalkDir does.
func (fl *Files) WalkDir(path string, fn fs.WalkDirFunc) error { return fs.WalkDir(fl.fsys, path, fn) }

// Missing reports, at at, that path cannot be read; nil when it exists.
func (fl *Files) Missing(path string, at diag.Loc) diag.Diagnostics {
	if _, err := fl.Stat(path); err != nil {
		return diag.Diagnostics{diag.Errorf(diag.FileUnreadable, at, "cannot read %s: %v", path, unwrapPathError(err))}
	}
	return nil
}

// CompactCubeFile is the compact form of an MLCube 1.0 cube, which
// MLCube 1.0 unpacks into mlcube.yaml, tasks/ and run/ when the folder has
// no mlcube.yaml (CompactMLCube in mlcube_metadata.py).
const CompactCubeFile = ".mlcube.yaml"

// CubeFile turns a --mlcube argument, a folder or a file, into the file:
// a folder's mlcube.yaml, else its compact .mlcube.yaml, else its MedPerf
// container_config.yaml.
func (fl *Files) CubeFile(path string) string {
	if info, err := fl.Stat(path); err != nil || !info.IsDir() {
		return path
	}
	cube := filepath.Join(path, "mlcube.yaml")
	if _, err := fl.Stat(cube); err != nil {
		for _, other := range []string{CompactCubeFile, ContainerConfigFile} {
			if _, err := fl.Stat(filepath.Join(path, other)); err == nil {
				return filepath.Join(path, other)
			}
		}
	}
	return cube
}

// containerFilesHint names, when a cube folder has neither mlcube.yaml
// nor container_config.yaml, the MedPerf container files it does have
// (container_config_as_docker.yaml and the like), of which --mlcube must
// name one.
func (fl *Files) containerFilesHint(path string) string {
	if filepath.Base(path) != "mlcube.yaml" {
		return ""
	}
	names := fl.ContainerFiles(filepath.Dir(path))
	if len(names) == 0 {
		return ""
	}
	return fmt.Sprintf("; the folder has no mlcube.yaml or %s, but MedPerf container files %s: name one, "+
		"such as --mlcube %s", ContainerConfigFile, strings.Join(names, ", "), filepath.Join(filepath.Dir(path), names[0]))
}

// ContainerFiles are the MedPerf container files of a folder
// (container_config*.yaml), sorted.
func (fl *Files) ContainerFiles(dir string) []string {
	entries, err := fs.ReadDir(fl.fsys, dir)
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		if n := e.Name(); strings.HasPrefix(n, "container_config") && strings.HasSuffix(n, ".yaml") && !e.IsDir() {
			names = append(names, n)
		}
	}
	return names
}

// ContainerConfigFile is the name of MedPerf's container file.
const ContainerConfigFile = "container_config.yaml"

// ReadYAML reads one YAML spec file and parses it keeping positions; the
// file is nil after a problem. Problems are reported against the file;
// via is the flag or key that named it, the field for problems with the
// file as a whole.
func (fl *Files) ReadYAML(path string, via diag.Loc) (*ast.File, diag.Diagnostics) {
	src, diags := fl.readSpecFile(path, via, "a YAML file")
	if diags != nil {
		return nil, diags
	}
	return ParseYAML(path, via, src)
}

// ReadEnvFile reads KEY=VALUE lines (seed 002's mlops.env). Blank lines
// and lines starting with # are skipped; a value may be quoted. A line
// that is not KEY=VALUE is an error naming its line. at is the key
// naming the file.
func (fl *Files) ReadEnvFile(path string, at diag.Loc) ([]EnvVar, diag.Diagnostics) {
	if diags := fl.Missing(path, at); diags != nil {
		return nil, diags
	}
	src, diags := fl.readSpecFile(path, at, "an env file")
	if diags != nil {
		return nil, diags
	}
	return parseEnvFile(path, src, at)
}

// readSpecFile reads a regular file of at most maxSpecBytes. A folder, a
// device or a pipe is refused before it is read, and the read itself is
// bounded, so no file makes the compiler wait or grow without end.
func (fl *Files) readSpecFile(path string, via diag.Loc, want string) ([]byte, diag.Diagnostics) {
	fl.mu.Lock()
	src, ok := fl.read[path]
	fl.mu.Unlock()
	if ok {
		return src, nil
	}
	src, diags := fl.readOnce(path, via, want)
	if diags == nil {
		fl.mu.Lock()
		fl.read[path] = src
		fl.mu.Unlock()
	}
	return src, diags
}

// readOnce is readSpecFile's read of the file system.
func (fl *Files) readOnce(path string, via diag.Loc, want string) ([]byte, diag.Diagnostics) {
	whole := via.At(diag.Pos{File: path})
	fail := func(format string, args ...any) ([]byte, diag.Diagnostics) {
		return nil, diag.Diagnostics{diag.Errorf(diag.FileUnreadable, whole, format, args...)}
	}
	info, err := fl.Stat(path)
	switch {
	case err != nil:
		return fail("cannot read: %v%s", unwrapPathError(err), fl.containerFilesHint(path))
	case info.IsDir():
		return fail("is a folder, want %s", want)
	case !info.Mode().IsRegular():
		return fail("is a device, pipe or socket, want %s", want)
	case info.Size() > maxSpecBytes:
		return fail("file is %d bytes, larger than the %d-byte limit for a spec", info.Size(), maxSpecBytes)
	}
	f, err := fl.fsys.Open(path)
	if err != nil {
		return fail("cannot read: %v", unwrapPathError(err))
	}
	defer f.Close()
	src, err := io.ReadAll(io.LimitReader(f, maxSpecBytes+1))
	switch {
	case err != nil:
		return fail("cannot read: %v", unwrapPathError(err))
	case len(src) > maxSpecBytes:
		return fail("file is larger than the %d-byte limit for a spec", maxSpecBytes)
	}
	return src, nil
}

func unwrapPathError(err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		return pe.Err
	}
	return err
}
