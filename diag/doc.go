// Package diag holds what mlcube-compile reports about a spec: a
// Diagnostic (where, which field, what, how bad, its fixes as edits) and
// a Loc, the place in a spec file a diagnostic is about; the table of
// codes, each with its severity, docs and old aliases; and ApplyFixes,
// which makes diagnostics' edits in files' contents. It imports nothing
// of ours, so the compiler, the IR, the backends and the command all
// speak it.
package diag
