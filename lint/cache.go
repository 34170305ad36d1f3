package lint

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"

	"github.com/mlcube-compile/mlcube-compile/compiler"
)

// Cache keeps what lint found for a compilation between runs, by a key
// that is a hex SHA-256. Get misses on anything it cannot read; Put's
// failure only costs the next run the work. It must be safe for
// concurrent use: every worker calls it.
type Cache interface {
	Get(key string) ([]byte, bool)
	Put(key string, value []byte) error
}

// cacheFormat names the layout of keys and entries; a change to either
// changes it, so that no entry of an older layout is read.
const cacheFormat = "mlcube-compile lint cache 2"

// entry is what the cache keeps for one compilation: the files it looked
// at, and what it found before --strict.
type entry struct {
	Inputs []input `json:"inputs"`
	Result result  `json:"result"`
}

// unitKey is a compilation's key: the cache's format, the tool (Options'
// CacheVersion: a different binary finds nothing of another's), the
// backends checked, and the compiler's options (every field but the file
// system and the schema, which are lint's own). The files' contents are
// not in the key: they are in the entry, compared on each lookup, since
// which files a compilation reads (a pipeline's cubes) is known only
// after it ran.
func unitKey(u unit, opts Options) (string, bool) {
	o := u.opts
	o.FS, o.Schema = nil, nil
	parts := struct {
		Format, Version string
		Backends        []string
		Options         compiler.Options
	}{cacheFormat, opts.CacheVersion, opts.Backends, o}
	raw, err := json.Marshal(parts)
	if err != nil {
		return "", false
	}
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:]), true
}

// cached is the unit's entry in the cache, when every file it looked at
// is as it was.
func cached(c Cache, key string, fsys fs.FS) (entry, bool) {
	raw, ok := c.Get(key)
	if !ok {
		return entry{}, false
	}
	var e entry
	if err := json.Unmarshal(raw, &e); err != nil || e.Inputs == nil || !unchanged(fsys, e.Inputs) {
		return entry{}, false
	}
	return e, true
}

// keep stores a unit's result, unless some file was not read to its end.
func keep(c Cache, key string, rec *recorder, r result) {
	inputs, whole := rec.inputs()
	if !whole {
		return
	}
	raw, err := json.Marshal(entry{Inputs: inputs, Result: r})
	if err != nil {
		return
	}
	_ = c.Put(key, raw) // a failed write only costs the next run the work
}
