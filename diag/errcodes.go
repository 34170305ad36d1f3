package diag

import "slices"

// The codes of the errors, in the ranges of the warnings' topics, from
// 50 up in each: MLC15x reading the files, 25x names, params and
// references, 35x resources, commands and docker flags, 45x distributed
// steps, 55x storage, 65x what an engine refuses, 75x the command.
const (
	FileUnreadable  Code = "MLC150"
	YAMLSyntax      Code = "MLC151"
	DuplicateKey    Code = "MLC152"
	YAMLShape       Code = "MLC153"
	BadReference    Code = "MLC154"
	EnvFileLine     Code = "MLC155"
	WrongFile       Code = "MLC156"
	MissingFile     Code = "MLC157"
	UnknownField    Code = "MLC158"
	WrongValue      Code = "MLC159"
	MissingField    Code = "MLC160"
	UnknownName     Code = "MLC250"
	BadParamRef     Code = "MLC251"
	BadParam        Code = "MLC252"
	NoNameChars     Code = "MLC253"
	DependencyCycle Code = "MLC254"
	BadTaskList     Code = "MLC255"
	Credential      Code = "MLC256"
	BadEnv          Code = "MLC257"
	BadPathArg      Code = "MLC258"
	BadConfigs      Code = "MLC259"
	BadShape        Code = "MLC260"
	MixedWriters    Code = "MLC261"
	CubeFileClash   Code = "MLC262"
	ResultsTooLarge Code = "MLC265"
	BadQuantity     Code = "MLC350"
	BadDockerFlags  Code = "MLC351"
	BadPlacement    Code = "MLC352"
	RootConflict    Code = "MLC353"
	BadCommand      Code = "MLC354"
	NoImage         Code = "MLC355"
	BadRetry        Code = "MLC356"
	BadSchedule     Code = "MLC357"
	BadQueue        Code = "MLC358"
	BadGPURequest   Code = "MLC359"
	RunsAsRoot      Code = "MLC360"
	EngineNotLocked Code = "MLC361"
	CannotLockDown  Code = "MLC362"
	BadMPI          Code = "MLC450"
	BadDask         Code = "MLC451"
	BadHostname     Code = "MLC452"
	BadTorch        Code = "MLC453"
	ReservedPath    Code = "MLC550"
	BadClaim        Code = "MLC551"
	BadAccessModes  Code = "MLC552"
	BadVolumeMount  Code = "MLC553"
	BadURL          Code = "MLC554"
	NoObjectStore   Code = "MLC555"
	BadBucket       Code = "MLC556"
	URLNotWritable  Code = "MLC557"
	NeedsClaim      Code = "MLC558"
	EngineCannotRun Code = "MLC650"
	TooLarge        Code = "MLC651"
	WorkspaceHidden Code = "MLC652"
	IsolationUnsaid Code = "MLC653"
	BadFlag         Code = "MLC750"
	Internal        Code = "MLC751"
	CommandFailed   Code = "MLC752"
)

// MLCube's own refusals, mirrored: docs/specs.md, "What MLCube refuses".
const (
	RunnerKeyUnknown   Code = "MLC161"
	OutputTypeUnknown  Code = "MLC162"
	RunnerValueRefused Code = "MLC163"
	LegacyRuntime      Code = "MLC164"
)

// ErrorCodes are the errors' codes, in order.
func ErrorCodes() []CodeDoc { return slices.Clone(errorDocs) }

// IsError reports whether c is an error's code, which no --disable or
// disable comment silences.
func IsError(c Code) bool {
	return slices.ContainsFunc(errorDocs, func(d CodeDoc) bool { return d.Code == c })
}
