//go:build e2e

package e2e

import "strings"

// draExample says whether an example's pods claim GPUs by Dynamic
// Resource Allocation (examples/dra-*), which pods on the real node,
// without a DRA driver or a GPU, cannot get: TestE2EDryRunGoldens checks
// their documents, ResourceClaimTemplates included, on the API server.
func draExample(name string) bool { return strings.HasPrefix(name, "dra-") }

// draNotRun is why a DRA example does not run on the real node.
const draNotRun = "not run here: its pods claim GPUs by DRA, which the real node has no driver for; TestE2EDryRunGoldens checks its documents"
