package ir

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mlcube-compile/mlcube-compile/diag"
)

// SplitHint says what to do about a pipeline too large for one object.
const SplitHint = "split it into several pipelines that share the workspace claim, run the repeated part as a " +
	"WorkflowTemplate, or move large values to a ConfigMap"

// Pipeline is one compiled run: the steps of one or more cube tasks.
type Pipeline struct {
	// Source is the spec file the pipeline was read from, for messages.
	Source string
	// Spec is that file, and Platform the platform file (nowhere without
	// one): what a backend's warnings are about is below one of them.
	Spec, Platform diag.Loc
	// Name is the pipeline's name, valid as a Kubernetes name prefix.
	Name string
	// Written is the name Name is made from, as the spec writes it (the
	// pipeline's, or its cube's), for messages about it.
	Written string `json:",omitempty"`
	// Namespace is empty when the manifest should not set one.
	Namespace          string
	ServiceAccountName string
	// LimitsEqualRequests limits every container's cpu and memory to its
	// requests, those of engine helpers included.
	LimitsEqualRequests bool
	// JobServiceAccountName runs the pods of MPI and Dask jobs; empty
	// means the namespace's default account, with no API token.
	JobServiceAccountName string
	ImagePullSecrets      []string
	// TTLSecondsAfterFinished is nil when the platform sets none.
	TTLSecondsAfterFinished *int32
	// Labels go on every object and pod.
	Labels map[string]string
	Params []Param
	// Volumes are the claims steps mount, sorted by name.
	Volumes []Volume
	// Steps are in topological order, ties broken by name.
	Steps []*Step
	// FileSteps are the steps of the pipeline file, as it writes their
	// names and in its order, those --step left out of Steps included;
	// nil for a cube's tasks. They are for messages (a backend that runs
	// one step names --step and the others), so not in the IR's JSON.
	FileSteps []string `json:"-"`
	// NeedValues, when set, says why every param needs a value at compile
	// time (the kind of run asked for takes none when it starts), for the
	// param-values pass; not in the IR's JSON.
	NeedValues string `json:"-"`
	// Config is the ConfigMap the pipeline's configs become, created
	// before the run; nil when there are none.
	Config *ConfigMap
	// Schedule is when a scheduled kind of run starts; nil for none.
	Schedule *Schedule
	// KubectlImage runs the steps that create and watch a distributed job,
	// on engines that need a container for that.
	KubectlImage string
	// PodSecurity is the Pod Security Standard the run's namespace
	// enforces, as the platform says it: PodSecurityRestricted, or empty.
	PodSecurity string `json:",omitempty"`
	// Engines are what the platform says of one engine's cluster alone
	// (its tekton: section), by engine name: each engine's own settings,
	// which it reads and nothing else does, beside the engine-neutral
	// pipeline as a KFP platform spec travels beside its pipeline spec.
	Engines map[string]json.RawMessage `json:",omitempty"`
	// ObjectStore is where steps fetch inputs given as URLs and, with an
	// object workspace, upload their outputs; nil when the platform
	// names none.
	ObjectStore *ObjectStore `json:",omitempty"`
	// Provenance is set when the run writes a statement of how its
	// results were made: it uploads final results to an S3 bucket.
	Provenance *Provenance `json:",omitempty"`
	// ResourceClaimTemplates are what the steps' GPU claims are made
	// from, one per distinct request, sorted by name; created before the
	// run.
	ResourceClaimTemplates []ResourceClaimTemplate `json:",omitempty"`
	// Needed are the paths the run reads that no step writes, which must
	// be on their claims before it starts, for the note that says so.
	Needed []Needed `json:"-"`
}

// Needed is a path the run reads and no step writes.
type Needed struct {
	// Claim is the claim that must hold it; empty for a workspace claim
	// created for each run, which starts empty.
	Claim string
	// Path is where on the claim, a folder with a trailing /.
	Path string
	// Steps are the steps that read it, as the pipeline names them.
	Steps []string
}

// Param is a pipeline parameter that can be set when the run is submitted.
type Param struct {
	Name        string
	Description string
	// Default is nil for a parameter without one.
	Default *string
	Enum    []string
	// What lowering found of the param, for the param-values pass, which
	// leaves out of Params those that are no engine parameter; not in the
	// IR's JSON. Loc is where the pipeline file writes it; Given, the -f
	// or --set value that became Default, if one did.
	Loc   diag.Loc    `json:"-"`
	Given *GivenValue `json:"-"`
	// Named says its name is one a ${params.X} may name; Used, that a
	// reference of the run names it; AtRunTime, that one of those leaves
	// it to the engine (not replaced by its compile-time value in a job's
	// manifest).
	Named, Used, AtRunTime bool `json:"-"`
}

// GivenValue is a value -f or --set gives a param at compile time, as
// written, and where.
type GivenValue struct {
	Value string
	Loc   diag.Loc
}

// ConfigMap holds the pipeline's configs; every step gets each key as an
// environment variable.
type ConfigMap struct {
	Name string
	// Data maps each key to its value: text, or JSON for a map or list.
	Data map[string]string
}

// Schedule is a cron schedule, as Argo's CronWorkflow takes it.
type Schedule struct {
	// Cron holds standard five-field cron expressions.
	Cron []string
	// Timezone is an IANA name; empty means the controller's local time.
	Timezone string
	// ConcurrencyPolicy is Allow, Forbid, Replace, or empty for Allow.
	ConcurrencyPolicy       string
	StartingDeadlineSeconds *int64
	Suspend                 bool
}

// Volume is a PersistentVolumeClaim: an existing one, or one the engine
// creates for the run when Create is set; or, with PerPod, a volume each
// pod has of its own.
type Volume struct {
	// Name is the volume's name inside the manifest.
	Name string
	// ClaimName is the existing claim; empty when Create is set.
	ClaimName string
	Create    *ClaimTemplate
	// PerPod gives every pod that mounts it an empty volume of its own:
	// an emptyDir, or a generic ephemeral volume of Ephemeral when set.
	PerPod    bool           `json:",omitempty"`
	Ephemeral *ClaimTemplate `json:",omitempty"`
	// Concurrent names two steps that mount a created ReadWriteOnce claim
	// and may run at the same time; nil when there are none.
	Concurrent []string
}

// ClaimTemplate is a claim created for each run.
type ClaimTemplate struct {
	Size             string
	StorageClassName string
	AccessModes      []string
	// Chosen says the compiler chose AccessModes, as the platform
	// names none.
	Chosen bool `json:",omitempty"`
}

// Kind says how a step runs. Backends switch on it and never guess.
type Kind int

const (
	// Container steps run the cube task in one container.
	Container Kind = iota
	// MPI steps run the cube task as an MPIJob: Step's container is the
	// launcher's, and MPI says how the workers run.
	MPI
	// Dask steps run a Python function on a Dask cluster as a DaskJob:
	// Step's image, env and mounts are the job runner's.
	Dask
	// Torch steps run the cube task with torchrun on every node of a
	// Kubeflow Trainer TrainJob: Step's container is each node's.
	Torch
)

// kindNames are the kinds as the IR's JSON writes them.
var kindNames = []string{Container: "container", MPI: "mpi", Dask: "dask", Torch: "torch"}

// MarshalText writes the kind's name.
func (k Kind) MarshalText() ([]byte, error) {
	if int(k) < 0 || int(k) >= len(kindNames) {
		return nil, fmt.Errorf("unknown step kind %d", int(k))
	}
	return []byte(kindNames[k]), nil
}

// UnmarshalText reads a kind's name.
func (k *Kind) UnmarshalText(b []byte) error {
	i := slices.Index(kindNames, string(b))
	if i < 0 {
		return fmt.Errorf("unknown step kind %q", b)
	}
	*k = Kind(i)
	return nil
}

// NetworkLabel, with the value "none", marks the pods of a step with
// NoNetwork, which the run's NetworkPolicy selects.
const NetworkLabel = "mlcube-compile/network"

// Step runs one cube task in one container, or one distributed job.
type Step struct {
	// Name is unique in the pipeline and valid for every engine.
	Name string
	// Written is the step's name as the spec writes it, and After the
	// steps its after: names, as written: what messages quote.
	Written string   `json:",omitempty"`
	After   []string `json:",omitempty"`
	// Loc is where the step is written, for warnings about it.
	Loc  diag.Loc
	Kind Kind
	// MPI is set for Kind MPI, Dask for Kind Dask, Train for Kind Torch.
	MPI   *MPIJob
	Dask  *DaskJob
	Train *TrainJob `json:",omitempty"`
	// Cube and Task are the names as the cube writes them.
	Cube, Task string
	// Template is the same for steps that run the same cube task; backends
	// that share definitions between steps group by it.
	Template string
	// Image is the image as a step names it, with the digest the
	// platform's imageDigests gives its tag (name:tag@sha256:...), as
	// ImageLocked says.
	Image       string
	ImageLocked bool `json:",omitempty"`
	// ImagePullPolicy is empty for the cluster's default.
	ImagePullPolicy string
	// Command is empty when the image's own entrypoint runs.
	Command []string
	// ArgsAreCommand says Args are a whole command line (a MedPerf
	// task's run_args.command), which docker runs after the image's
	// ENTRYPOINT, or alone when the image has none.
	ArgsAreCommand bool `json:",omitempty"`
	Args           []Arg
	Env            []EnvVar
	Mounts         []Mount
	// ShmSize sizes a memory-backed /dev/shm; empty means the default.
	ShmSize string
	// ShmHost asks for a memory-backed /dev/shm with no size of its own,
	// as large as the pod's memory allows: what docker's --ipc=host and
	// -v /dev/shm:/dev/shm give, the host's /dev/shm. ShmSize is empty.
	ShmHost         bool `json:",omitempty"`
	Resources       Resources
	NodeSelector    map[string]string
	Tolerations     []Toleration
	SecurityContext *SecurityContext
	// Retry is nil when a failed step is not retried.
	Retry *Retry
	// Timeout is zero for none.
	Timeout time.Duration
	// Dependencies name the steps that must succeed first, sorted.
	Dependencies []string
	Labels       map[string]string
	// Queue is the Kueue LocalQueue that admits the step's workload (its
	// pod, Job or MPIJob); empty for none. Only what Kueue admits as one
	// workload carries it, never the pods of an engine's helpers.
	Queue string `json:",omitempty"`
	// WorkloadPriorityClass is the Kueue WorkloadPriorityClass of the
	// queued workload; empty for none, and always when Queue is.
	WorkloadPriorityClass string `json:",omitempty"`
	// PriorityClassName is the PriorityClass of the step's pods (its
	// container's, or every pod of its job); empty for the default.
	PriorityClassName string `json:",omitempty"`
	// NoNetwork is set for a MedPerf container's step, which MedPerf
	// runs with the network off: its pods carry NetworkLabel, and the
	// run comes with a NetworkPolicy that isolates them.
	NoNetwork bool `json:",omitempty"`
	// Fetches are put in place, in order, before the container starts,
	// each checked against its sha256; Uploads are sent to the object
	// store when it ends, each with its sha256.
	Fetches []Fetch  `json:",omitempty"`
	Uploads []Upload `json:",omitempty"`
	// Folders are made before the container starts, as MLCube makes
	// them: each output folder of its args, and the folder of each
	// output file. Only a container step has them.
	Folders []Folder `json:",omitempty"`
	// Key is set when the run caches the step (ObjectStore.Cache).
	Key *StepKey `json:",omitempty"`
	// CacheSetting is the step's cache: as written, for the cache-keys
	// pass; nil when it writes none.
	CacheSetting *bool `json:"-"`
}

// Arg is one container argument. Param names the cube parameter it binds,
// if any, so that backends can pass differing paths to a shared template.
type Arg struct {
	Param string
	// Prefix is the literal text before Value, such as "--data_dir=".
	Prefix string
	Value  Text
}

// Text is a string that may refer to pipeline parameters, which each
// engine writes its own way.
type Text []Piece

// Piece is a literal, or a reference to the pipeline parameter Param.
type Piece struct {
	Literal string
	Param   string
}

// ImageName is image without a digest: the name by which a platform
// setting such as tekton.imageEntrypoints names it.
func ImageName(image string) string {
	name, _, _ := strings.Cut(image, "@")
	return name
}

// Lit makes a Text with no parameter references.
func Lit(s string) Text { return Text{{Literal: s}} }

// Render writes t, writing each parameter reference with ref.
func (t Text) Render(ref func(param string) string) string {
	return t.render(func(s string) string { return s }, ref)
}

// RenderContainer renders t for a container's command, args or env
// value: like Render, with each literal piece escaped by KubeLiteral.
func (t Text) RenderContainer(ref func(param string) string) string {
	return t.render(KubeLiteral, ref)
}

func (t Text) render(literal, ref func(string) string) string {
	var out strings.Builder
	for _, p := range t {
		if p.Param != "" {
			out.WriteString(ref(p.Param))
		} else {
			out.WriteString(literal(p.Literal))
		}
	}
	return out.String()
}

// KubeLiteral escapes s for a container's command, args or env value,
// where Kubernetes reads $(VAR) as a reference to another variable and $$
// as an escaped $. Text without either reaches the container unchanged, so
// it is left as it is.
func KubeLiteral(s string) string {
	if strings.Contains(s, "$$") || strings.Contains(s, "$(") {
		return strings.ReplaceAll(s, "$", "$$")
	}
	return s
}

// EnvVar is an environment variable of the step's container: Value, or
// the key of a Secret when Secret is set, or of the pipeline's ConfigMap
// when Config is set.
type EnvVar struct {
	Name   string
	Value  Text
	Secret *SecretKey
	Config *ConfigKey
}

// ConfigKey is one key of the pipeline's ConfigMap.
type ConfigKey struct {
	ConfigMap, Key string
}

// SecretKey is one key of a Kubernetes Secret in the run's namespace.
type SecretKey struct {
	Secret, Key string
}

// Resources are the step's requests and GPU limit.
type Resources struct {
	// CPU and Memory are Kubernetes quantities, empty when not requested.
	CPU, Memory string
	GPU         int
	// GPUResource is the extended resource name, such as nvidia.com/gpu;
	// empty when GPUClaim asks for the GPUs.
	GPUResource string
	// GPUClaim asks for the GPUs by Dynamic Resource Allocation, in place
	// of GPUResource; nil for an extended resource, and without GPUs.
	GPUClaim *GPUClaim `json:",omitempty"`
	// LimitsEqualRequests limits cpu and memory to the requests, for
	// namespaces whose ResourceQuota counts limits.
	LimitsEqualRequests bool
}

// Toleration lets a step run on tainted nodes.
type Toleration struct {
	Key, Operator, Value, Effect string
	TolerationSeconds            *int64
}

// SecurityContext is the pod security settings a step runs with.
type SecurityContext struct {
	RunAsUser, RunAsGroup, FSGroup *int64
	RunAsNonRoot                   *bool
}

// Retry retries a failed step Limit times, waiting Backoff first.
type Retry struct {
	Limit   int
	Backoff time.Duration
}

// PodSecurityRestricted is Pipeline.PodSecurity for Kubernetes'
// restricted Pod Security Standard.
const PodSecurityRestricted = "restricted"
