// Package compiler is mlcube-compile's front end, and the thin driver of
// its phases: package source reads files (the only code that opens one),
// package spec checks them against the embedded CUE schemas and decodes
// them, package check makes the semantic checks of the decoded specs,
// and package lower lowers them to package ir, with the checks that read
// lowered values, using package graph for the step graph.
//
// Every problem is collected as a Diagnostic printed as
// file:line:col: field.path: message, so a user sees all of them at once;
// Compile returns them sorted.
package compiler
