// Package lower turns decoded specs (package spec) into the IR (package
// ir). Each value is read once, and a rule about what a spec writes lives
// beside the code that reads that value, so every problem is reported
// once, at its field: a check takes what it reads and returns its
// diagnostics. A step is lowered in a context of its own (the step, and
// the kind of job it becomes), never in modes set on the whole lowering.
//
// Lowering is total: a refused value lowers to nothing, a step it cannot
// name gets a stand-in, a dependency cycle leaves the steps in written
// order. Work over the whole lowered pipeline is package passes' (it
// rewrites the IR) and package verify's (it refuses).
package lower
