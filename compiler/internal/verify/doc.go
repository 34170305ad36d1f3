// Package verify holds the checks of a lowered pipeline (package ir),
// run by compiler.Compile after lowering: the rules that need values
// only lowering decides. Names (names.go): each step's and the
// pipeline's engine name, and the pipeline name cut to fit. Order
// (order.go): after: targets, and dependency cycles over the steps'
// dependencies. Claims (claims.go): the access modes of a claim made for
// each run against the steps that mount it. Hostnames (hostnames.go):
// the names mpi-operator and the Dask operator derive from a job's.
//
// Lowering is total: it builds a pipeline from whatever the specs say,
// and what the specs get wrong it reports where it reads them. So these
// checks run on every pipeline, with the step names as written
// (ir.Step.Written, After) for their messages; a rule that reads only
// what one spec writes belongs to lowering, beside the code that reads
// it.
package verify
