// Package source is the only code of the compiler that opens files. It
// reads spec, values and env files through an fs.FS (Disk by default,
// fstest.MapFS in tests), bounded and regular files only; parses YAML
// keeping positions (filling in those CUE's decoder drops, yamlpos.go),
// and explains the common mistakes in YAML the decoder refuses
// (yamlhint.go, yamlscan.go);
// checks the tree before any schema sees it (duplicate keys, depth,
// engine template syntax, yamlcheck.go); resolves ${a.b} references
// (refs.go); indexes where each field is written (positions.go); and
// parses env files (envfile.go).
//
// It knows no schema and no spec kind beyond a file's top-level keys.
package source
