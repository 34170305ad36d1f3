// Package lint checks every cube, platform and pipeline file under some
// paths: it finds and classifies the files, pairs them into the
// compilations a user would run, by the rule a compile follows
// (compiler.Pair: a pipeline with the cube of its folder, each with the
// platform.yaml beside it), runs those on a worker per CPU, each compiled
// and emitted for every backend (or those Options.Backends names) through
// the driver, and returns every diagnostic, sorted. Walking folders is its
// own; it reads files only through the compiler.
package lint
