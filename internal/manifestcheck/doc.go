// Package manifestcheck serves tests only: it checks what the command
// prints, or an engine emits, with each engine's own code, as the
// cluster would when the objects are created: Argo v3.7's and v4's
// validators (through argotest), Tekton's defaulting and validation and
// tkn's start (through tkntest), the Job's validation, mpi-operator's
// for embedded MPIJobs, and the Dask operator's CRD schema. It also
// compiles a spec folder as the command does for one engine (Build), and
// asks an engine whether it runs pipelines of a spec's shape (Accepts).
// The command's tests, the engines' and the e2e suite share it.
package manifestcheck
