// Package lower turns checked specs into the IR (package ir): the
// pipeline's name, params, workspace and claims (lower.go, claims.go),
// each step (step.go) with its container command and arguments
// (args.go), environment (env.go), resources and placement
// (placement.go), docker flags (dockerargs.go), MPI and Dask jobs
// (distributed.go), the ConfigMap (configs.go) and the schedule
// (schedule.go); names valid for every engine (names.go). Steps are
// ordered with package graph.
//
// Lowering still makes the semantic checks that read lowered values;
// see docs/ARCHITECTURE.md for which.
package lower
