package docs_test

// repoRoot is the repository, seen from this folder; commandDir the
// command's package.
const (
	repoRoot   = ".."
	commandDir = "../cmd/mlcube-compile"
)
