package spec

import (
	"encoding/json"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/source"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// The spec types hold what the files say, after schema checks, with the
// locations that semantic checks report against.

// cube is one MLCube, in either layout.
type Cube struct {
	Name  string
	File  string // the mlcube.yaml it was read from
	Image string
	// AcceleratorCount is platform.accelerator_count.
	AcceleratorCount int
	GPUArgs, CPUArgs DockerArgs
	// GPUFlag is the --gpus that sets how many GPUs each task asks for,
	// over AcceleratorCount; nil for none.
	GPUFlag *GPUFlag
	// Flags are the docker section's --KEY: VALUE entries but --gpus and
	// --mount_opts, each as the flag --KEY=VALUE that MLCube's docker
	// runner adds to every docker run (DockerRun.run, docker_run.py).
	Flags []DockerArgs
	Env   []EnvVar
	K8s   K8sRunner
	Tasks []*Task
	// Legacy marks the 1.0 layout: its tasks are run files.
	Legacy bool
	// Container marks a MedPerf container_config.yaml, whose tasks mount
	// each volume at its mount path and take no --name=path arguments.
	Container bool
}

// DockerArgs is a docker run flag string and where it is written.
type DockerArgs struct {
	Text string
	Loc  diag.Loc
}

type K8sRunner struct {
	PVC, Image, Namespace string
}

func (c *Cube) Task(name string) *Task {
	for _, t := range c.Tasks {
		if t.Name == name {
			return t
		}
	}
	return nil
}

func (c *Cube) TaskNames() []string {
	names := make([]string, len(c.Tasks))
	for i, t := range c.Tasks {
		names[i] = t.Name
	}
	return names
}

type Task struct {
	Name string
	// Loc is where the task is written: its key in the cube, or the
	// task_name of a legacy invoke file.
	Loc diag.Loc
	// File is the run file a task of the 1.0 layout was read from.
	File string
	// InvokeName is the task_name of a 1.0 run file for MLCube 1.0's
	// docker runner, which passes it first (docker_run.py); empty for a
	// 2.0 cube, which passes the task's name, and for the mlcube_k8s
	// runner's run files, which pass none.
	InvokeName string
	Entrypoint string
	Inputs     []*Param
	Outputs    []*Param
	// Run is a MedPerf task's run_args, and Env their environment; Run
	// is nil for an MLCube's task.
	Run *RunArgs
	Env []EnvVar
}

// param is one task parameter: a path relative to its volume.
type Param struct {
	Name string
	Path string
	Dir  bool
	Loc  diag.Loc
	// Claim is the PVC a legacy binding names; empty means the workspace.
	Claim string
	// MountPath is where a MedPerf volume is mounted in the container;
	// empty for an MLCube's parameter.
	MountPath string
}

// EnvVar is a variable and where it is written, as env files give them.
type EnvVar = source.EnvVar

// Platform is the cluster profile; every field is optional.
type Platform struct {
	File string `json:"-"`
	// Loc is the platform file, or nowhere without one.
	Loc diag.Loc `json:"-"`
	// Cut are the fields of the file whose wrong values it was read
	// without (salvage): the file has errors, and the checks after the
	// schema are kept only where they are not about these.
	Cut                []string          `json:"-"`
	Namespace          string            `json:"namespace"`
	ServiceAccountName string            `json:"serviceAccountName"`
	JobServiceAccount  string            `json:"jobServiceAccountName"`
	LimitsEqual        bool              `json:"limitsEqualRequests"`
	Image              string            `json:"image"`
	ImagePullPolicy    string            `json:"imagePullPolicy"`
	ImagePullSecrets   []string          `json:"imagePullSecrets"`
	ImageDigests       map[string]string `json:"imageDigests"`
	GPU                GPU               `json:"gpu"`
	CPU                Scheduling        `json:"cpu"`
	Storage            Storage           `json:"storage"`
	SecurityContext    *SecurityContext  `json:"securityContext"`
	PodSecurity        string            `json:"podSecurity"`
	MPI                struct {
		APIVersion string `json:"apiVersion"`
	} `json:"mpi"`
	Dask struct {
		Kind string `json:"kind"`
	} `json:"dask"`
	// Tekton is the tekton: section, as the schema checked it: the Tekton
	// engine's own settings, which the compiler hands it as written.
	Tekton  json.RawMessage `json:"tekton"`
	MedPerf struct {
		Network string `json:"network"`
	} `json:"medperf"`
	KubectlImage string `json:"kubectlImage"`
	TTLSeconds   *int32 `json:"ttlSecondsAfterFinished"`
	Priorities
	// Queue is the Kueue LocalQueue of every step; empty for none.
	Queue string `json:"queue"`
	// MultiKueue hands queued TrainJobs and MPIJobs to Kueue's MultiKueue.
	MultiKueue  bool         `json:"multiKueue"`
	ObjectStore *ObjectStore `json:"objectStore"`
}

// ObjectStore is the platform's bucket: S3's, or Argo's artifact
// repository.
type ObjectStore struct {
	S3 *struct {
		Endpoint        string       `json:"endpoint"`
		Bucket          string       `json:"bucket"`
		Region          string       `json:"region"`
		Insecure        bool         `json:"insecure"`
		AccessKeySecret SecretKeyRef `json:"accessKeySecret"`
		SecretKeySecret SecretKeyRef `json:"secretKeySecret"`
	} `json:"s3"`
	ArtifactRepositoryRef *RepositoryRef `json:"artifactRepositoryRef"`
	ToolImage             string         `json:"toolImage"`
	ArtifactGC            string         `json:"artifactGC"`
	Cache                 *Cache         `json:"cache"`
}

// Cache is the object store's cache: section.
type Cache struct {
	Prefix    string `json:"prefix"`
	ImageTags bool   `json:"imageTags"`
}

// RepositoryRef is a key of a ConfigMap in the run's namespace that holds
// an Argo artifact repository.
type RepositoryRef struct {
	ConfigMap string `json:"configMap"`
	Key       string `json:"key"`
}

// SecretKeyRef is a key of a Secret.
type SecretKeyRef struct {
	Name string `json:"name"`
	Key  string `json:"key"`
}

// Priorities are the Kueue WorkloadPriorityClass of a queued workload and
// the PriorityClass of pods, as the platform or a step says them.
type Priorities struct {
	WorkloadPriorityClass string `json:"workloadPriorityClass"`
	PriorityClassName     string `json:"priorityClassName"`
}

type GPU struct {
	Resource string `json:"resource"`
	DeviceRequest
	// ExtendedResourceName is the DeviceClass's spec.extendedResourceName.
	ExtendedResourceName string `json:"extendedResourceName"`
	Scheduling
}

// DeviceRequest asks for GPUs by Dynamic Resource Allocation: a claim
// per pod of DeviceClass's devices that match Selector, or the existing
// claim SharedClaim that the pods share. It is the platform's gpu:
// section's, or a resources mapping's own.
type DeviceRequest struct {
	DeviceClass string `json:"deviceClass"`
	Selector    string `json:"selector"`
	SharedClaim string `json:"sharedClaim"`
}

type Scheduling struct {
	NodeSelector map[string]string `json:"nodeSelector"`
	Tolerations  []Toleration      `json:"tolerations"`
}

type Toleration struct {
	Key               string `json:"key"`
	Operator          string `json:"operator"`
	Value             string `json:"value"`
	Effect            string `json:"effect"`
	TolerationSeconds *int64 `json:"tolerationSeconds"`
}

type Storage struct {
	PVC              string      `json:"pvc"`
	Size             interface{} `json:"size"`
	StorageClassName string      `json:"storageClassName"`
	AccessModes      []string    `json:"accessModes"`
	MountPath        string      `json:"mountPath"`
	Workspace        string      `json:"workspace"`
}

// Object says whether every step has a workspace of its own, its data
// moved through the object store (storage.workspace: object).
func (s Storage) Object() bool { return s.Workspace == "object" }

type SecurityContext struct {
	RunAsUser    *int64 `json:"runAsUser"`
	RunAsGroup   *int64 `json:"runAsGroup"`
	FSGroup      *int64 `json:"fsGroup"`
	RunAsNonRoot *bool  `json:"runAsNonRoot"`
}

// Pipeline is a pipeline file, or the pipeline made of a cube's tasks.
type Pipeline struct {
	File string
	// Loc is the pipeline file, or the cube file for a cube's tasks.
	Loc    diag.Loc
	Name   string
	Params []*PipelineParam
	// SecretEnv applies to every step; a step's own entries win.
	SecretEnv []SecretEnvVar
	// Configs become one ConfigMap; each key is a variable of every step.
	Configs  []ConfigEntry
	Schedule *Schedule
	Steps    []*Step
	// Tasks says how a cube's tasks became the steps: EveryTask when no
	// --task named any, run in the file's order wherever their paths
	// touch; InOrder for a --task list, run one after another as listed.
	Tasks TaskOrder
	// FromCube marks the pipeline made of a cube's tasks, with no
	// pipeline file.
	FromCube bool
	// FileSteps are the names of a pipeline file's steps, in its order,
	// those --step left out of Steps included (PickSteps); nil for a
	// cube's tasks.
	FileSteps []string
	// Incomplete says a part the steps rest on could not be read: the
	// platform file, or a step (its cube or task not found). The checks
	// after reading would report only the consequences, such as a step
	// waiting for one that is not there, so they do not run. Fields the
	// schema refused leave a pipeline complete: it is read without them.
	Incomplete bool
}

// TaskOrder says how the steps of a cube's tasks are ordered.
type TaskOrder int

const (
	// PipelineSteps are a pipeline file's steps, or one task of a cube.
	PipelineSteps TaskOrder = iota
	// EveryTask is every task of a cube, in the file's order wherever
	// their paths touch, reads included (MLCube mounts inputs writable).
	EveryTask
	// InOrder is a --task list, run in the order given, as mlcube run
	// --task a,b,c runs it.
	InOrder
)

// SecretEnvVar sets a variable from a key of a Kubernetes Secret.
type SecretEnvVar struct {
	Name   string
	Secret string `json:"secret"`
	Key    string `json:"key"`
	Loc    diag.Loc
}

type PipelineParam struct {
	Name        string
	Default     *string
	Required    bool
	Description string
	Enum        []string
	Loc         diag.Loc
	// Given is the -f or --set value that became Default, if one did.
	Given *ParamValue
}

// Step is one step: a task of a cube with the step's own settings.
type Step struct {
	Name string
	// Loc is where the step is written, and its fields below it.
	Loc  diag.Loc
	Cube *Cube
	// CubeKey is the name the pipeline's cubes: gives Cube; empty when
	// it has no cubes:.
	CubeKey string
	Task    *Task
	After   []string
	// Inputs and Outputs override the paths of the task's parameters.
	Inputs, Outputs map[string]string
	// CubeInputs are the cube's own files in a pipeline of several
	// cubes: the inputs left at their default place that no step writes,
	// each at its place under the cube's name (keepCubeInputs).
	CubeInputs      map[string]string
	Args            []string
	Env             []EnvVar
	EnvFile         string
	EnvFileVars     []EnvVar
	SecretEnv       []SecretEnvVar
	Resources       Resources
	NodeSelector    map[string]string
	Tolerations     []Toleration
	SecurityContext *SecurityContext
	Retries         *Retries
	Timeout         string
	// Cache is the step's cache: setting; nil when it writes none.
	Cache *bool
	// MPI, Torch and Dask are set for distributed steps; a Dask step
	// has no Cube or Task.
	MPI   *MPI
	Torch *Torch
	Dask  *Dask
	// Queue is the step's Kueue LocalQueue: nil for the platform's, ""
	// for none.
	Queue *string
	Priorities
}

// MPI is a step's mpi: section.
type MPI struct {
	Workers          int        `json:"workers"`
	SlotsPerWorker   *int       `json:"slotsPerWorker"`
	Implementation   string     `json:"implementation"`
	Entrypoint       string     `json:"entrypoint"`
	WorkerCommand    []string   `json:"workerCommand"`
	SSHAuthMountPath string     `json:"sshAuthMountPath"`
	Launcher         *Resources `json:"launcher"`
}

// Torch is a step's torch: section.
type Torch struct {
	Nodes        int    `json:"nodes"`
	ProcsPerNode *int   `json:"procsPerNode"`
	Runtime      string `json:"runtime"`
	RuntimeKind  string `json:"runtimeKind"`
	Entrypoint   string `json:"entrypoint"`
}

// Dask is a step's dask: section.
type Dask struct {
	Function string `json:"function"`
	// Args is the args mapping as JSON, in the order it is written.
	Args      string        `json:"-"`
	Workers   int           `json:"-"`
	Autoscale *ir.Autoscale `json:"-"`
	Worker    *Resources    `json:"worker"`
	Image     string        `json:"image"`
	Setup     struct {
		Pip   []string `json:"pipPackages"`
		Apt   []string `json:"aptPackages"`
		Conda []string `json:"condaPackages"`
	} `json:"setup"`
	Output struct {
		Path   string `json:"path"`
		Bucket string `json:"bucket"`
		Secret string `json:"secret"`
	} `json:"-"`
}

type Resources struct {
	CPU    interface{} `json:"cpu"`
	Memory interface{} `json:"memory"`
	GPU    *int        `json:"gpu"`
	DeviceRequest
}

type Retries struct {
	Limit   int    `json:"limit"`
	Backoff string `json:"backoff"`
}
