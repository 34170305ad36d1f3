// Package e2e holds only tests: the end-to-end suite, in files with the
// build tag e2e, which `make e2e` (scripts/e2e/run.sh) runs against the
// local cluster that scripts/e2e/up.sh starts: a real kube-apiserver with
// the CRDs of Argo, Tekton, mpi-operator, Dask and Kueue, KWOK nodes, a
// real node, and the engines' own controllers.
//
// The suite tests the command as users run it: TestMain builds the real
// mlcube-compile binary once (go build ./cmd/mlcube-compile, from the
// module's root, with the caller's GOFLAGS) into a temporary folder, and
// every compile runs that binary with os/exec. It imports nothing of the
// command; what the tests read back (each engine's validators, the
// embedded jobs, tkn pipeline start's run) is their own copy, in
// validators_test.go and mpiv1_test.go.
//
// This file has no build tag, so that the folder is a package without it
// (go list ./..., go vet ./..., the house rules).
package e2e
