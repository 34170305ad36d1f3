package source

import (
	"bytes"
	"io/fs"
	"time"
)

// StdinName is how paths and messages name a spec read from standard
// input (--task - or --platform -). Paths in it are relative to the
// working folder, as a file there would have them.
const StdinName = "<stdin>"

// WithStdin is fsys (Disk when nil) with data, read from standard input,
// as the regular file StdinName.
func WithStdin(fsys fs.FS, data []byte) fs.FS {
	if fsys == nil {
		fsys = Disk
	}
	return stdinFS{FS: fsys, data: data}
}

type stdinFS struct {
	fs.FS
	data []byte
}

func (s stdinFS) Open(name string) (fs.File, error) {
	if name == StdinName {
		return &stdinFile{Reader: bytes.NewReader(s.data), size: int64(len(s.data))}, nil
	}
	return s.FS.Open(name)
}

func (s stdinFS) Stat(name string) (fs.FileInfo, error) {
	if name == StdinName {
		return stdinInfo(len(s.data)), nil
	}
	return fs.Stat(s.FS, name)
}

// stdinFile is the spec read from standard input, read again from memory.
type stdinFile struct {
	*bytes.Reader
	size int64
}

func (f *stdinFile) Stat() (fs.FileInfo, error) { return stdinInfo(f.size), nil }
func (f *stdinFile) Close() error               { return nil }

// stdinInfo describes standard input's spec as a regular file of n bytes.
type stdinInfo int64

func (n stdinInfo) Name() string       { return StdinName }
func (n stdinInfo) Size() int64        { return int64(n) }
func (n stdinInfo) Mode() fs.FileMode  { return 0o444 }
func (n stdinInfo) ModTime() time.Time { return time.Time{} }
func (n stdinInfo) IsDir() bool        { return false }
func (n stdinInfo) Sys() any           { return nil }
