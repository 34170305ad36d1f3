package ir

// GeneratedSuffixLen is how many characters the API server appends to a
// generateName to make a name.
const GeneratedSuffixLen = 5

// MPIJob is how an MPI step runs: the step's command (mpirun and the
// task's entrypoint), args, env and mounts are the launcher's; every
// worker gets the step's resources, scheduling and mounts.
type MPIJob struct {
	// APIVersion is kubeflow.org/v2beta1 or kubeflow.org/v1.
	APIVersion string
	// GenerateName prefixes the job's name; the API server completes it.
	GenerateName   string
	Workers        int
	SlotsPerWorker int
	// Implementation is OpenMPI, Intel or MPICH.
	Implementation   string
	SSHAuthMountPath string
	// WorkerCommand keeps a worker up for the launcher to reach.
	WorkerCommand []string
	// Launcher is what the launcher asks for; it runs no ranks.
	Launcher             Resources
	LauncherNodeSelector map[string]string
	LauncherTolerations  []Toleration
	// TTLSecondsAfterFinished is nil when the platform sets none.
	TTLSecondsAfterFinished *int32
	// ManagedBy hands the job to another controller, such as Kueue's
	// MultiKueue; empty for mpi-operator itself.
	ManagedBy string `json:",omitempty"`
}

// TrainJob is how a torch step runs: a Kubeflow Trainer TrainJob whose
// runtime starts Nodes pods, each running the step's command (torchrun
// and the task's entrypoint) with the step's args, env, mounts,
// resources and scheduling.
type TrainJob struct {
	// GenerateName prefixes the job's name; the API server completes it.
	GenerateName string
	// Runtime names the training runtime, of RuntimeKind
	// (ClusterTrainingRuntime or TrainingRuntime).
	Runtime, RuntimeKind string
	Nodes, ProcsPerNode  int
	// ManagedBy hands the job to another controller, such as Kueue's
	// MultiKueue; empty for Trainer's own.
	ManagedBy string `json:",omitempty"`
}

// DaskJob is how a Dask step runs: a job runner calls Function with Args
// on a cluster of workers and writes the table it returns to Output.
type DaskJob struct {
	// Form is what the cluster is made of.
	Form DaskForm
	// GenerateName prefixes the job's name, which is also its cluster's.
	GenerateName string
	// Function is a dotted Python path; Args is a JSON object of its
	// keyword arguments. Both reach the runner as data, in env vars.
	Function string
	Args     string
	// Workers is how many workers start; Autoscale, when set, lets the
	// operator scale them between its bounds.
	Workers   int
	Autoscale *Autoscale
	// Worker is what each worker asks for, and where workers run.
	Worker             Resources
	WorkerNodeSelector map[string]string
	WorkerTolerations  []Toleration
	// Setup lists packages the image installs when each container starts.
	PipPackages, AptPackages, CondaPackages []string
	// Output is a path in the workspace, or an s3:// URL.
	Output string
	// OutputSecret names the Secret with the object store's credentials.
	OutputSecret string
	// ManagedBy hands a JobSet to another controller, such as Kueue's
	// MultiKueue; empty for JobSet's own.
	ManagedBy string `json:",omitempty"`
}

// DaskForm is the object a Dask step's cluster is made of.
type DaskForm string

const (
	// DaskJobSet is a JobSet (jobset.x-k8s.io) of three replicated jobs:
	// the scheduler, the workers and a client that calls the function.
	// It needs no Dask operator, and Kueue admits it whole.
	DaskJobSet DaskForm = "JobSet"
	// DaskOperator is the Dask Kubernetes operator's DaskJob
	// (kubernetes.dask.org), which can scale its workers.
	DaskOperator DaskForm = "DaskJob"
)

// Autoscale bounds the workers of an adaptive Dask cluster.
type Autoscale struct {
	Minimum, Maximum int
}
