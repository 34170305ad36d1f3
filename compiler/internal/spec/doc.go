// Package spec holds what the spec files say, and reads them: every file
// is checked against its CUE schema with each violation at its field and
// position, then decoded into plain types (cubes in either MLCube layout
// and MedPerf's, platforms, pipelines, values and --set).
//
// Checks that need a file's CUE values, or that decide whether a step
// exists at all, are made here; package lower makes the others as it
// reads the decoded specs. Files are read only through package source.
package spec
