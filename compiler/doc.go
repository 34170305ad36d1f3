// Package compiler is mlcube-compile's front end. It reads MLCube, platform
// and pipeline files keeping positions, checks them against the embedded
// CUE schemas, resolves ${...} references, runs the semantic checks (names,
// bindings, path flow, cycles) and lowers the result to package ir.
//
// Every problem is collected as a Diagnostic printed as
// file:line:col: field.path: message, so a user sees all of them at once.
package compiler
