// Package compiler is mlcube-compile's front end, and the thin driver of
// its phases: package source reads files (the only code that opens one),
// package spec checks them against the embedded CUE schemas and decodes
// them, package lower lowers them to package ir (using package graph for
// the step graph), checking each value where it reads it, package
// passes runs the whole-pipeline passes over the IR, and package verify
// checks the lowered pipeline.
//
// Every problem is collected as a Diagnostic printed as
// file:line:col: field.path: message, so a user sees all of them at once;
// Compile returns them sorted.
package compiler
