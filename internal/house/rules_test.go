package house

// The tables of the house rules. Packages are named by their folder from
// the module root; a pattern ending in "/..." also names every folder
// under it, and "..." names every package of ours.

const (
	maxFuncLines = 60  // rule 1, a report
	maxFileLines = 400 // rule 2, a report
	maxLineWidth = 120 // rule 8
)

// lineTables are the files that are tables, whose rows rule 8 leaves as
// they are: the table of codes, from which docs/troubleshooting.md is
// generated.
var lineTables = []string{"diag/codedocs.go"}

// neverRule: no package of from may import one of to unless it is also
// in except, for why.
type neverRule struct {
	from, to, except []string
	why              string
}

// engineImports are what each engine (backends/argo, tekton, job) may
// import of ours: the IR, diagnostics, the contract and the helpers.
var engineImports = []string{"diag", "compiler/ir", "backends/emit", "backends/internal/kube",
	"backends/internal/distributed"}

// flow is rule 4's table, from docs/ARCHITECTURE.md's "Rules between
// packages": each package of ours and the only packages of ours its
// non-test files may import. A package missing here fails: add it where
// the architecture puts it (and say so there), never wider than never
// allows.
var flow = map[string][]string{
	"diag":                     {},
	"internal/specgen":         {},
	"schema":                   {"diag"},
	"compiler/graph":           {},
	"compiler/internal/source": {"diag"},
	"compiler/ir":              {"diag"},
	"compiler/internal/spec":   {"diag", "compiler/internal/source", "compiler/ir", "schema"},
	"compiler/internal/lower":  {"diag", "compiler/internal/spec", "compiler/graph", "compiler/ir"},
	"compiler/internal/passes": {"diag", "compiler/ir"},
	"compiler/internal/verify": {"diag", "compiler/graph", "compiler/ir"},
	"compiler": {"diag", "schema", "compiler/internal/source", "compiler/internal/spec",
		"compiler/internal/lower", "compiler/internal/passes", "compiler/internal/verify", "compiler/graph", "compiler/ir"},
	"compiler/internal/spectest": {"diag", "internal/specgen"},
	"internal/examples":          {},
	"internal/golden":            {},
	"backends/tekton/tkntest":    {},
	"backends/argo/argotest":     {"backends/argo"},
	"internal/enginetest":        {"diag", "compiler/ir", "backends/emit", "internal/golden"},
	"internal/manifestcheck": {"compiler", "backends/emit", "backends/engines", "backends/job", "backends/argo/argotest",
		"backends/tekton/tkntest", "internal/enginetest", "internal/examples"},
	"backends/emit":                 {"diag", "compiler/ir"},
	"backends/render":               {"diag", "compiler/ir"},
	"backends/internal/kube":        {"diag", "compiler/ir", "backends/emit"},
	"backends/internal/distributed": {"diag", "compiler/ir", "backends/emit", "backends/internal/kube"},
	// "only diag, ir, emit and kube"
	// engines: the one place that names every engine.
	// backends/engines, and each engine, come from the registry
	// (registryRules): a new engine adds no line here.
	"backends/engines": {"backends/emit"},
	// driver: engines only through the contract and the registry.
	"driver": {"diag", "schema", "compiler", "compiler/ir", "backends/emit", "backends/render", "backends/engines"},
	"lint":   {"diag", "schema", "compiler", "driver"},
	// cmd: driver, lint and schema, and what their API speaks (compiler's
	// and emit's options, diag, render's formats); never an engine.
	"cmd/mlcube-compile": {"diag", "schema", "compiler", "backends/emit", "backends/render", "driver", "lint",
		"cmd/mlcube-compile/internal/gctune"},
	// gctune: the collector tuned at init, before heavy packages' init.
	"cmd/mlcube-compile/internal/gctune": {},
	"bench/gen":                          {"internal/specgen"},
	"bench/floor":                        {},
	"scripts/e2e/gotrim":                 {},
	"scripts/e2e/cubeimage":              {},
	"internal/house":                     {},
	// e2e: the end-to-end suite, tests only; it runs the built command.
	"e2e":  {},
	"docs": {},
}

// never is what no entry of flow may allow: the one-way rules the table
// must keep however it grows. A package may import one of to unless it
// is also in except.
var never = []neverRule{
	{[]string{"diag", "compiler/graph", "internal/specgen"}, []string{"..."}, nil,
		"it imports nothing of ours"},
	{[]string{"compiler/internal/source", "compiler/ir", "schema"}, []string{"..."}, []string{"diag"},
		"it imports only diag of ours"},
	{[]string{"compiler/internal/lower"}, []string{"compiler/internal/source", "schema"}, nil,
		"lower never imports source or CUE; it reaches them only through spec"},
	{[]string{"compiler/internal/verify"}, []string{"..."}, []string{"diag", "compiler/graph", "compiler/ir"},
		"verify reads only the lowered pipeline: it imports only ir, graph and diag of ours"},
	{[]string{"compiler/internal/passes"}, []string{"..."}, []string{"diag", "compiler/ir"},
		"a pass reads only the IR: it imports only ir and diag of ours"},
	{[]string{"backends/..."}, []string{"compiler/...", "schema", "driver", "lint", "cmd/..."}, []string{"compiler/ir"},
		"backends see the compiler only through compiler/ir, and never schema (CUE), driver, lint or cmd"},
	{[]string{"backends/emit"}, []string{"..."}, []string{"diag", "compiler/ir"},
		"the engine contract imports only ir and diag of ours"},
	{[]string{"backends/internal/..."}, []string{"backends/render"}, nil, "the engines' helpers never import render"},
	{[]string{"compiler/..."}, []string{"driver", "lint"}, nil, "the compiler never imports driver or lint"},
	{[]string{"diag", "schema", "backends/...", "driver", "lint", "cmd/...", "internal/...", "bench/...",
		"e2e", "scripts/..."},
		[]string{"compiler/internal/..."}, nil,
		"the compiler's phases are its own: outside compiler/ nothing uses a name of compiler/internal (the go command " +
			"refuses the import too)"},
	{[]string{"driver"}, []string{"lint"}, nil, "lint imports driver, not the other way"},
	{[]string{"cmd/..."}, []string{"backends/internal/..."}, nil, "cmd never imports an engine's helpers"},
	{[]string{"..."}, []string{"cmd/..."}, []string{"cmd/mlcube-compile/internal/gctune"},
		"nothing imports cmd (but the command its own gctune, for its init)"},
}

// testOnly are the packages that serve tests only: no entry of flow but
// another of them may import one.
var testOnly = []string{"compiler/internal/spectest", "internal/examples", "internal/golden", "internal/enginetest",
	"internal/manifestcheck", "backends/tekton/tkntest", "backends/argo/argotest", "e2e"}

// noCUE are the packages that may not import CUE (cuelang.org/go):
// engines never do; lower reaches it only through spec and check reads
// only decoded specs; graph is integers in and out; and the IR holds no
// cue.Value (a CUE value pins its context, which is not safe to share
// across goroutines).
var noCUE = []string{"backends/...", "compiler/ir", "compiler/internal/lower", "compiler/internal/passes",
	"compiler/internal/verify", "compiler/graph"}

// opens is rule 5's list of what opens, reads, writes, lists or stats
// files, by import path; a nil list is the whole package.
var opens = map[string][]string{
	"os": {"Open", "OpenFile", "OpenInRoot", "OpenRoot", "ReadFile", "Create", "CreateTemp", "WriteFile",
		"ReadDir", "DirFS", "Stat", "Lstat", "Mkdir", "MkdirAll", "MkdirTemp", "Remove", "RemoveAll",
		"Rename", "Truncate", "Chmod", "Chtimes", "Symlink", "Link", "Readlink", "CopyFS"},
	"path/filepath": {"Walk", "WalkDir", "Glob", "EvalSymlinks"},
	"io/ioutil":     nil,
}

// mayOpen are rule 5's exceptions: where a file (or, ending in "/...", a
// folder and everything under it) may use some of opens (nil: all of
// them), and why.
var mayOpen = []struct {
	where string
	uses  []string
	why   string
}{
	{"compiler/internal/source/...", nil, "the one package that opens files: every read goes through its Files, over an " +
		"fs.FS (source.Disk)"},
	{"cmd/...", nil, "the CLI: it writes the -o file atomically (os.CreateTemp, os.Chmod, os.Rename, os.Remove " +
		"in run.go)"},
	{"bench/...", nil, "commands outside the flow: the generator writes spec trees, the floor reads them"},
	{"scripts/...", nil, "the e2e cluster's build tools, outside the flow: gotrim rewrites the Go files of an upstream " +
		"module's copy; cubeimage lays out a cube's image from its build context"},
	{"internal/...", nil, "test helpers: specgen, examples (finds the examples' files), and these tests, which read the " +
		"repository's source"},
	{"compiler/internal/spectest/...", nil,
		"test helper: reads the examples and bad cases as fuzz seeds, writes benchmark trees into a test's folder"},
	{"internal/enginetest/...", nil, "test helper: reads the IR golden files, compares and rewrites " +
		"(-update) each engine's"},
	{"lint/find.go", []string{"os.Stat", "filepath.WalkDir"},
		"lint walks the folders it is given to find spec files; it reads them only through compiler/internal/source"},
}

// prints is rule 6's list of what writes to stdout or stderr, by import
// path; a nil list is the whole package. The builtins print and println
// are checked too.
var prints = map[string][]string{
	"os":       {"Stdout", "Stderr"},
	"fmt":      {"Print", "Printf", "Println"},
	"log":      nil,
	"log/slog": nil,
}

// mayPrint are rule 6's exceptions: errors are printed in one place,
// cmd/mlcube-compile/run.go, and the bench commands print their tables.
var mayPrint = []string{"cmd/...", "bench/...", "scripts/..."}

// knownViolation is a break of a rule that was already there when the
// rule came: a function (rule 1) or file (rule 2) waiting to be split.
type knownViolation struct {
	rule       int
	file, what string
}

// known are the violations the house rules found when they came in; they
// are not reported, until fixed: then the test asks for their line here
// to go. Add none.
var known = []knownViolation{}
