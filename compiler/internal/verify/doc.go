// Package verify holds the checks of a lowered pipeline (package ir): the
// rules that need values only lowering decides (engine names, after:
// targets and cycles, claim access modes, derived hostnames).
//
// Lowering is total, so these run on every pipeline, and report with the
// step names as written (ir.Step.Written, After). A rule that reads only
// what one spec writes belongs to lowering, beside the code that reads it.
package verify
