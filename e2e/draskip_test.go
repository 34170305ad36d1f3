//go:build e2e

package e2e

import "strings"

// draExample says whether an example's pods claim GPUs by Dynamic
// Resource Allocation (examples/dra-*), which ask for the platform's
// GPU nodes (their nodeSelector and taints), not the real node: the
// generic real-node runs leave them out, TestE2EDryRunGoldens checks
// their documents, ResourceClaimTemplates included, on the API server,
// TestE2EDRACompiledOnRealNode runs dra-gpu on each backend with the
// real node's driver, and the other DRA tests (dra_test.go) run
// hand-written claims on it.
func draExample(name string) bool { return strings.HasPrefix(name, "dra-") }

// draNotRun is why a DRA example does not run in the generic real-node runs.
const draNotRun = "not run here: its pods claim GPUs by DRA on the platform's GPU nodes; " +
	"TestE2EDRACompiledOnRealNode runs dra-gpu with the real node's driver, and TestE2EDryRunGoldens checks every DRA " +
	"example's documents"
