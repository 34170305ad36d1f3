package diag

import "slices"

// Code names one kind of warning, stably across releases: what lint
// --disable takes, what a "# mlcube-compile: disable CODE" comment in a
// spec names, and the section of docs/troubleshooting.md that explains
// it. MLC1xx are about reading the files, 2xx paths, params and names,
// 3xx resources and docker flags, 4xx distributed steps, 5xx storage,
// 6xx one engine's (Argo 60x, Tekton 62x, Job 64x), 7xx the command.
type Code string

// The codes of the warnings.
const (
	KeyIgnored               Code = "MLC101"
	KeyWrittenTwice          Code = "MLC102"
	BindingDropped           Code = "MLC103"
	PathOutsideWorkspace     Code = "MLC104"
	UnknownCode              Code = "MLC105"
	TaskNameIsFile           Code = "MLC106"
	DisableUnused            Code = "MLC107"
	PathInContainer          Code = "MLC201"
	PathTilde                Code = "MLC202"
	PathLeavesWorkspace      Code = "MLC203"
	NameCut                  Code = "MLC204"
	TaskBeforeWriter         Code = "MLC205"
	Overwritten              Code = "MLC206"
	ParamReachesNothing      Code = "MLC208"
	TektonURIsLeftOut        Code = "MLC211"
	DockerGPUsUnasked        Code = "MLC301"
	DockerFlagNotApplied     Code = "MLC302"
	GPUCountDiffers          Code = "MLC303"
	GPUsOfOneHost            Code = "MLC304"
	LimitWithoutRequest      Code = "MLC305"
	ShmInMemoryLimit         Code = "MLC306"
	GPUsByDRA                Code = "MLC307"
	GPUsAsLimit              Code = "MLC308"
	QueuedGPUClaims          Code = "MLC309"
	GPUsFromCube             Code = "MLC310"
	GPUSettingUnused         Code = "MLC314"
	CPUPlacementUnused       Code = "MLC315"
	PlatformSettingUnused    Code = "MLC316"
	QueuedGPUsAsLimit        Code = "MLC319"
	PreemptionRetried        Code = "MLC320"
	BackoffNotApplied        Code = "MLC321"
	DaskWorkersUnsized       Code = "MLC401"
	SSHKeysUnreadable        Code = "MLC402"
	RanksPerGPU              Code = "MLC403"
	DaskSetupNeedsRoot       Code = "MLC404"
	TorchNotCarried          Code = "MLC405"
	ClaimReadWriteMany       Code = "MLC501"
	ObjectStoreUnused        Code = "MLC502"
	DataClaimUnused          Code = "MLC503"
	ClaimPerRunDeleted       Code = "MLC504"
	ArgoV4TooManyTemplate    Code = "MLC601"
	ArgoV4TooManyTasks       Code = "MLC602"
	ArgoV4TooManyParams      Code = "MLC603"
	ArgoV4Schedule           Code = "MLC604"
	ArgoConfigMapAccount     Code = "MLC605"
	ArgoClaimOneNode         Code = "MLC607"
	ArgoClaimTemplateAccount Code = "MLC608"
	ArgoArtifactGCAccount    Code = "MLC609"
	TektonNoStartFlag        Code = "MLC621"
	TektonStartFlag          Code = "MLC622"
	TektonGPUUnplaced        Code = "MLC623"
	TektonClaims             Code = "MLC624"
	TektonParamNoDefault     Code = "MLC626"
	TektonNoTTL              Code = "MLC628"
	TektonWorkspaceUnseen    Code = "MLC629"
	TektonCmdBeforeArgs      Code = "MLC631"
	IsolationEgress          Code = "MLC630"
	JobNoRBAC                Code = "MLC643"
	ScheduleUnused           Code = "MLC701"
	BackendLeftOut           Code = "MLC702"
	OutputStale              Code = "MLC703"
	GlobUnmatched            Code = "MLC704"
	PlatformRead             Code = "MLC710"
	NoPlatformRead           Code = "MLC711"
	FileSkipped              Code = "MLC712"
	ResultsKept              Code = "MLC713"
	InputsNeeded             Code = "MLC714"
	CompiledAlone            Code = "MLC715"
)

// SaysSettingUnused says that a warning of code c is about a setting of
// the platform file that the compiled run never uses: lint keeps one only
// when every compilation that reads the file gives it.
func (c Code) SaysSettingUnused() bool {
	return slices.Contains([]Code{GPUSettingUnused, CPUPlacementUnused, PlatformSettingUnused, ObjectStoreUnused,
		DataClaimUnused}, c)
}

// Docker flags read as docker and MLCube read them (issue 48).
const (
	GPUsFromFlag Code = "MLC716"
)

// CodeDoc is what docs/troubleshooting.md says of a code.
type CodeDoc struct {
	Code Code
	// Title names the warning, as its message begins or means.
	Title string
	// Fix says what to do about it, in Markdown.
	Fix string
}

// Codes are every code, in order.
func Codes() []CodeDoc { return slices.Clone(codeDocs) }

// aliases are the codes a problem had before it had one on every engine:
// --disable and disable comments still take them.
var aliases = map[Code]Code{
	"MLC606": ClaimPerRunDeleted, // Argo's
	"MLC627": ClaimPerRunDeleted, // Tekton's
	"MLC642": ClaimPerRunDeleted, // the Job's
	"MLC625": BackoffNotApplied,  // Tekton's
	"MLC641": BackoffNotApplied,  // the Job's
}

// Problem is the code of the problem c names: c, or the code an alias
// stands for.
func (c Code) Problem() Code {
	if p, ok := aliases[c]; ok {
		return p
	}
	return c
}

// AliasesOf are the old codes of c's problem, sorted.
func AliasesOf(c Code) []Code {
	var out []Code
	for a, p := range aliases {
		if p == c {
			out = append(out, a)
		}
	}
	slices.Sort(out)
	return out
}

// Known reports whether c is a code, or an alias of one.
func Known(c Code) bool {
	_, alias := aliases[c]
	return alias || slices.ContainsFunc(codeDocs, func(d CodeDoc) bool { return d.Code == c })
}

// CodeNames are the codes as strings, for suggestions.
func CodeNames() []string {
	out := make([]string, len(codeDocs))
	for i, d := range codeDocs {
		out[i] = string(d.Code)
	}
	return out
}
