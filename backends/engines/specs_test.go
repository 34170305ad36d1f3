package engines_test

import (
	"github.com/mlcube-compile/mlcube-compile/backends/engines"
)

// These tests compile one spec for several engines and check what each
// makes of it.

// backendNames are every engine's --backend value, in help's order.
func backendNames() []string {
	var names []string
	for _, e := range engines.All {
		names = append(names, e.Name())
	}
	return names
}
