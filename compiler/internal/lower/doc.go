// Package lower turns decoded specs (package spec) into the IR (package
// ir), reading each value once and checking it where it reads it: the
// pipeline's name, params (params.go), workspace mount path, claim and
// legacy claims (storage.go, claims.go), each step (step.go) with its
// docker flags, retries and timeout, its container command and
// arguments with their ${params.X} references (args.go), a MedPerf
// task's volumes (container.go), environment (env.go), resources and
// placement (placement.go, sizes.go), MPI and Dask jobs
// (distributed.go), Kueue queues and priorities (kueue.go), the
// ConfigMap (configs.go) and the schedule (schedule.go); names valid
// for every engine (names.go). Steps are ordered with package graph, and
// a --task list that runs a reader before its writer is warned about
// (tasks.go).
//
// A rule about what a spec writes lives here, beside the code that
// reads that value, so that no value is read twice and every problem is
// reported once. Lowering is total: a value it refuses lowers to
// nothing, a step it cannot name gets a stand-in, a dependency cycle
// leaves the steps in written order, and a claim's access modes are
// chosen but never refused; the rules that need the lowered pipeline
// (names, after: targets, cycles, access modes, hostnames) are package
// verify's.
package lower
