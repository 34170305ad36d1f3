// Package lower turns checked specs into the IR (package ir): the
// pipeline's name, params, workspace and claims (lower.go, claims.go),
// each step (step.go) with its container command and arguments
// (args.go), environment (env.go), resources and placement
// (placement.go), MPI and Dask jobs (distributed.go), the ConfigMap
// (configs.go) and the schedule (schedule.go); names valid for every
// engine (names.go). Steps are ordered with package graph.
//
// Package check makes the checks that read only the specs. Lowering
// keeps those that read lowered values: step and pipeline names, after:
// targets and cycles, claim access modes, MPI and Dask hostname lengths,
// the --gpus mismatch, limitsEqualRequests, slots per worker, SSH,
// fsGroup and run-as-root warnings, the image, and absolute paths or
// paths that leave the workspace. It runs even when check has found
// errors, and tolerates the values check refuses (an unparsable
// quantity or duration lowers to nothing), so that its own checks report
// as before.
package lower
