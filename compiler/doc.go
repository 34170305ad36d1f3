// Package compiler is mlcube-compile's front end and the driver of its
// phases: source reads files (the only code that opens one), spec checks
// them against the embedded CUE schemas, lower lowers them to ir, passes
// rewrites the IR, verify checks it. A Workspace holds one compilation's
// files, each read once, and answers every question about them: pairing,
// tasks, steps and params, the compile, and silencing. Every problem is
// a diag.Diagnostic at its file, line, column and field, all of them at
// once, sorted.
package compiler
