// Package e2e holds only tests: the end-to-end suite (build tag e2e),
// which `make e2e` runs against the local cluster scripts/e2e/up.sh
// starts: a real API server, KWOK nodes and one real node, with the
// engines' own controllers.
//
// It tests the command as users run it: TestMain builds the real binary
// once and every compile runs it, so the suite imports nothing of the
// command. This file has no build tag, so that the folder is a package
// without it (go vet ./..., the house rules).
package e2e
