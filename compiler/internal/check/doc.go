// Package check holds the semantic checks that read only the decoded
// specs (package spec), run by compiler.Compile between decoding and
// lowering: the workspace mount path and the steps (check.go), with
// retries and timeouts; params (params.go); the workspace claim, its
// size and legacy claim names (storage.go); the schedule (schedule.go);
// resources, node selectors and tolerations (placement.go); a step's
// command and arguments with their ${params.X} references (args.go);
// its environment (env.go); MPI and Dask settings (distributed.go);
// Kueue queues and priorities (kueue.go).
// Docker flags are parsed by spec.MapDockerArgs and reported here.
//
// A step is checked as lowering reads it: a step whose name has no
// letters or digits is left out (lowering reports it), a Dask step's
// args are not checked, and the GPU or CPU placement is the one its
// pods get.
//
// The checks that read lowered values stay in package lower, which
// runs after check even when check has found errors, so that they are
// all reported at once: step and pipeline names (nameSet), after:
// targets and cycles, claim access modes, the length of MPI and Dask
// hostnames, the --gpus mismatch, limitsEqualRequests, slots per worker,
// SSH, fsGroup and run-as-root warnings, the image, and paths that are
// absolute or leave the workspace.
package check
