package docs_test

import "flag"

// repoRoot is the repository, seen from this folder; commandDir the
// command's package.
const (
	repoRoot   = ".."
	commandDir = "../cmd/mlcube-compile"
)

// update rewrites the generated pages (make golden).
var update = flag.Bool("update", false, "rewrite the generated pages")
