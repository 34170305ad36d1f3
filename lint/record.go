package lint

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"hash"
	"io"
	"io/fs"
	"sort"
	"sync"
)

// The states of a file a compilation looked at, as a cache entry
// records it and a lookup compares it.
const (
	stateAbsent    = "absent"    // it could not be stat'ed or opened
	stateDir       = "dir"       // a folder
	stateFile      = "file"      // a regular file, stat'ed (Sum when read whole)
	stateIrregular = "irregular" // a device, pipe or socket
)

// input is one file a compilation looked at: its path as the compiler
// was given it, what it was, and the SHA-256 of its bytes when it was
// read to the end.
type input struct {
	Path  string `json:"path"`
	State string `json:"state"`
	// Size is a regular file's size: the compiler refuses a file over its
	// limit from its stat alone, without reading it.
	Size int64  `json:"size,omitempty"`
	Sum  string `json:"sum,omitempty"`
}

// recorder is an fs.FS that notes every file the compiler stats or
// opens on the file system under it, hashing what it reads, so that a
// cache entry names exactly the files its result depends on.
type recorder struct {
	fsys fs.FS
	mu   sync.Mutex
	seen map[string]input
	// partial is set when a file was opened and not read to its end: its
	// bytes are not all known, so the result is not kept.
	partial bool
}

func newRecorder(fsys fs.FS) *recorder {
	return &recorder{fsys: fsys, seen: map[string]input{}}
}

// note records what a stat or an open found, keeping a read's sum.
func (r *recorder) note(name string, info fs.FileInfo, err error) {
	in := input{Path: name, State: stateOf(info, err)}
	if in.State == stateFile {
		in.Size = info.Size()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if old, ok := r.seen[name]; ok && old.Sum != "" && old.State == in.State && old.Size == in.Size {
		return
	}
	r.seen[name] = in
}

// stateOf is a stat's result as a state.
func stateOf(info fs.FileInfo, err error) string {
	switch {
	case err != nil:
		return stateAbsent
	case info.IsDir():
		return stateDir
	case !info.Mode().IsRegular():
		return stateIrregular
	}
	return stateFile
}

// Stat implements fs.StatFS.
func (r *recorder) Stat(name string) (fs.FileInfo, error) {
	info, err := fs.Stat(r.fsys, name)
	r.note(name, info, err)
	return info, err
}

// Open implements fs.FS: the file's reads feed a hash, recorded when the
// file is closed.
func (r *recorder) Open(name string) (fs.File, error) {
	f, err := r.fsys.Open(name)
	if err != nil {
		r.note(name, nil, err)
		return nil, err
	}
	info, err := f.Stat()
	r.note(name, info, err)
	return &hashedFile{File: f, name: name, rec: r, h: sha256.New()}, nil
}

// inputs are the files recorded, by path, and whether all that were
// opened were read to the end.
func (r *recorder) inputs() ([]input, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]input, 0, len(r.seen))
	for _, in := range r.seen {
		out = append(out, in)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, !r.partial
}

// hashedFile is an opened file whose bytes are hashed as they are read.
type hashedFile struct {
	fs.File
	name string
	rec  *recorder
	h    hash.Hash
	eof  bool
}

func (f *hashedFile) Read(p []byte) (int, error) {
	n, err := f.File.Read(p)
	f.h.Write(p[:n])
	if errors.Is(err, io.EOF) {
		f.eof = true
	}
	return n, err
}

// Close records the file's sum, or that it was not read to its end.
func (f *hashedFile) Close() error {
	f.rec.mu.Lock()
	if f.eof {
		in := f.rec.seen[f.name]
		in.Sum = hex.EncodeToString(f.h.Sum(nil))
		f.rec.seen[f.name] = in
	} else {
		f.rec.partial = true
	}
	f.rec.mu.Unlock()
	return f.File.Close()
}

// unchanged reports whether every input is as it was recorded: the same
// state and, where a sum was recorded, the same bytes.
func unchanged(fsys fs.FS, inputs []input) bool {
	for _, in := range inputs {
		info, err := fs.Stat(fsys, in.Path)
		if stateOf(info, err) != in.State || in.State == stateFile && info.Size() != in.Size {
			return false
		}
		if in.Sum == "" {
			continue
		}
		src, err := fs.ReadFile(fsys, in.Path)
		if err != nil {
			return false
		}
		sum := sha256.Sum256(src)
		if hex.EncodeToString(sum[:]) != in.Sum {
			return false
		}
	}
	return true
}
