// Package diag holds what mlcube-compile reports about a spec: a
// Diagnostic (where, which field, what, how bad) and a Loc, the place in
// a spec file a diagnostic is about. It imports nothing of ours, so the
// compiler, the IR, the backends and the command all speak it.
package diag
