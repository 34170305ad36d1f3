// Package schema holds the CUE schemas of every spec mlcube-compile reads,
// embedded in the binary and compiled once. A Schema is used through Do,
// which runs one function at a time with the schema's Context: the CUE
// context specs are built in, and the definitions they are checked
// against. The words that explain a pattern come from the @help attribute
// beside it in the .cue files, read when the schema is compiled; the
// comment above each field is its description in the JSON Schema that
// Export names, for editors.
package schema
