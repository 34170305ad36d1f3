// Package source is the only code of the compiler that opens files. It
// reads spec, values and env files through an fs.FS (bounded, regular
// files only), parses YAML keeping every position, explains the YAML
// mistakes the decoder refuses, checks the tree before any schema sees it
// (duplicate keys, depth, engine template syntax), and resolves ${a.b}
// references.
//
// It knows no schema and no spec kind beyond a file's top-level keys.
package source
