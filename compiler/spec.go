package compiler

import (
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/compiler/source"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// The spec types hold what the files say, after schema checks, with the
// locations that semantic checks report against.

// cube is one MLCube, in either layout.
type cube struct {
	Name  string
	File  string // the mlcube.yaml it was read from
	Image string
	// AcceleratorCount is platform.accelerator_count.
	AcceleratorCount int
	GPUArgs, CPUArgs dockerArgs
	Env              []envVar
	K8s              k8sRunner
	Tasks            []*cubeTask
	// Legacy marks the 1.0 layout, whose runner passes no task name.
	Legacy bool
}

// dockerArgs is a docker run flag string and where it is written.
type dockerArgs struct {
	Text string
	Loc  diag.Loc
}

type k8sRunner struct {
	PVC, Image, Namespace string
}

func (c *cube) task(name string) *cubeTask {
	for _, t := range c.Tasks {
		if t.Name == name {
			return t
		}
	}
	return nil
}

func (c *cube) taskNames() []string {
	names := make([]string, len(c.Tasks))
	for i, t := range c.Tasks {
		names[i] = t.Name
	}
	return names
}

type cubeTask struct {
	Name string
	// Loc is where the task is written: its key in the cube, or the
	// task_name of a legacy invoke file.
	Loc        diag.Loc
	Entrypoint string
	Inputs     []*param
	Outputs    []*param
}

// param is one task parameter: a path relative to its volume.
type param struct {
	Name string
	Path string
	Dir  bool
	Loc  diag.Loc
	// Claim is the PVC a legacy binding names; empty means the workspace.
	Claim string
}

// envVar is a variable and where it is written, as env files give them.
type envVar = source.EnvVar

// platformSpec is the cluster profile; every field is optional.
type platformSpec struct {
	File string `json:"-"`
	// loc is the platform file, or nowhere without one.
	loc                diag.Loc
	Namespace          string               `json:"namespace"`
	ServiceAccountName string               `json:"serviceAccountName"`
	JobServiceAccount  string               `json:"jobServiceAccountName"`
	LimitsEqual        bool                 `json:"limitsEqualRequests"`
	Image              string               `json:"image"`
	ImagePullPolicy    string               `json:"imagePullPolicy"`
	ImagePullSecrets   []string             `json:"imagePullSecrets"`
	GPU                gpuSpec              `json:"gpu"`
	CPU                scheduling           `json:"cpu"`
	Storage            storageSpec          `json:"storage"`
	SecurityContext    *securityContextSpec `json:"securityContext"`
	MPI                struct {
		APIVersion string `json:"apiVersion"`
	} `json:"mpi"`
	KubectlImage string `json:"kubectlImage"`
	TTLSeconds   *int32 `json:"ttlSecondsAfterFinished"`
}

type gpuSpec struct {
	Resource string `json:"resource"`
	scheduling
}

type scheduling struct {
	NodeSelector map[string]string `json:"nodeSelector"`
	Tolerations  []tolerationSpec  `json:"tolerations"`
}

type tolerationSpec struct {
	Key               string `json:"key"`
	Operator          string `json:"operator"`
	Value             string `json:"value"`
	Effect            string `json:"effect"`
	TolerationSeconds *int64 `json:"tolerationSeconds"`
}

type storageSpec struct {
	PVC              string      `json:"pvc"`
	Size             interface{} `json:"size"`
	StorageClassName string      `json:"storageClassName"`
	AccessModes      []string    `json:"accessModes"`
	MountPath        string      `json:"mountPath"`
}

type securityContextSpec struct {
	RunAsUser    *int64 `json:"runAsUser"`
	RunAsGroup   *int64 `json:"runAsGroup"`
	FSGroup      *int64 `json:"fsGroup"`
	RunAsNonRoot *bool  `json:"runAsNonRoot"`
}

// pipelineSpec is a pipeline file, or the pipeline made of a cube's tasks.
type pipelineSpec struct {
	File string
	// Loc is the pipeline file, or the cube file for a cube's tasks.
	Loc    diag.Loc
	Name   string
	Params []*pipelineParam
	// SecretEnv applies to every step; a step's own entries win.
	SecretEnv []secretEnvVar
	// Configs become one ConfigMap; each key is a variable of every step.
	Configs  []configEntry
	Schedule *scheduleSpec
	Steps    []*stepSpec
}

// secretEnvVar sets a variable from a key of a Kubernetes Secret.
type secretEnvVar struct {
	Name   string
	Secret string `json:"secret"`
	Key    string `json:"key"`
	Loc    diag.Loc
}

type pipelineParam struct {
	Name        string
	Default     *string
	Required    bool
	Description string
	Enum        []string
	Loc         diag.Loc
	// Given is the -f or --set value that became Default, if one did.
	Given *paramValue
}

// stepSpec is one step: a task of a cube with the step's own settings.
type stepSpec struct {
	Name string
	// Loc is where the step is written, and its fields below it.
	Loc   diag.Loc
	Cube  *cube
	Task  *cubeTask
	After []string
	// Inputs and Outputs override the paths of the task's parameters.
	Inputs, Outputs map[string]string
	Args            []string
	Env             []envVar
	EnvFile         string
	EnvFileVars     []envVar
	SecretEnv       []secretEnvVar
	Resources       resourcesSpec
	NodeSelector    map[string]string
	Tolerations     []tolerationSpec
	SecurityContext *securityContextSpec
	Retries         *retriesSpec
	Timeout         string
	// MPI and Dask are set for distributed steps; a Dask step has no
	// Cube or Task.
	MPI  *mpiSpec
	Dask *daskSpec
}

// mpiSpec is a step's mpi: section.
type mpiSpec struct {
	Workers          int            `json:"workers"`
	SlotsPerWorker   *int           `json:"slotsPerWorker"`
	Implementation   string         `json:"implementation"`
	Entrypoint       string         `json:"entrypoint"`
	WorkerCommand    []string       `json:"workerCommand"`
	SSHAuthMountPath string         `json:"sshAuthMountPath"`
	Launcher         *resourcesSpec `json:"launcher"`
}

// daskSpec is a step's dask: section.
type daskSpec struct {
	Function string `json:"function"`
	// Args is the args mapping as JSON, in the order it is written.
	Args      string         `json:"-"`
	Workers   int            `json:"-"`
	Autoscale *ir.Autoscale  `json:"-"`
	Worker    *resourcesSpec `json:"worker"`
	Image     string         `json:"image"`
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

type resourcesSpec struct {
	CPU    interface{} `json:"cpu"`
	Memory interface{} `json:"memory"`
	GPU    *int        `json:"gpu"`
}

type retriesSpec struct {
	Limit   int    `json:"limit"`
	Backoff string `json:"backoff"`
}
