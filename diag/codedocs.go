package diag

// The table of codes. Each code is written once: its constant below, and
// its row in codeTable, which says how bad it is, its title and fix (the
// sections of docs/troubleshooting.md, rendered by TestTroubleshootingDoc)
// and the old codes of its problem. Codes, ErrorCodes, Known, IsError,
// Problem, AliasesOf and CodeNames read codeTable, and
// TestCodeTableIsTheOneList checks that each constant has one row and each
// row a constant. To add a code: a constant, in its topic's range, and a
// row where it belongs in the page's order.

// The codes of the errors, in the ranges of the warnings' topics, from
// 50 up in each: MLC15x reading the files, 25x names, params and
// references, 35x resources, commands and docker flags, 45x distributed
// steps, 55x storage, 65x what an engine refuses, 75x the command;
// MLC161-164 mirror MLCube's own refusals (docs/specs.md, "What MLCube
// refuses").
const (
	FileUnreadable     Code = "MLC150"
	YAMLSyntax         Code = "MLC151"
	DuplicateKey       Code = "MLC152"
	YAMLShape          Code = "MLC153"
	BadReference       Code = "MLC154"
	EnvFileLine        Code = "MLC155"
	WrongFile          Code = "MLC156"
	MissingFile        Code = "MLC157"
	UnknownField       Code = "MLC158"
	WrongValue         Code = "MLC159"
	MissingField       Code = "MLC160"
	RunnerKeyUnknown   Code = "MLC161"
	OutputTypeUnknown  Code = "MLC162"
	RunnerValueRefused Code = "MLC163"
	LegacyRuntime      Code = "MLC164"
	UnknownName        Code = "MLC250"
	BadParamRef        Code = "MLC251"
	BadParam           Code = "MLC252"
	NoNameChars        Code = "MLC253"
	DependencyCycle    Code = "MLC254"
	BadTaskList        Code = "MLC255"
	Credential         Code = "MLC256"
	BadEnv             Code = "MLC257"
	BadPathArg         Code = "MLC258"
	BadConfigs         Code = "MLC259"
	BadShape           Code = "MLC260"
	MixedWriters       Code = "MLC261"
	CubeFileClash      Code = "MLC262"
	ResultsTooLarge    Code = "MLC265"
	BadQuantity        Code = "MLC350"
	BadDockerFlags     Code = "MLC351"
	BadPlacement       Code = "MLC352"
	RootConflict       Code = "MLC353"
	BadCommand         Code = "MLC354"
	NoImage            Code = "MLC355"
	BadRetry           Code = "MLC356"
	BadSchedule        Code = "MLC357"
	BadQueue           Code = "MLC358"
	BadGPURequest      Code = "MLC359"
	RunsAsRoot         Code = "MLC360"
	EngineNotLocked    Code = "MLC361"
	CannotLockDown     Code = "MLC362"
	BadMPI             Code = "MLC450"
	BadDask            Code = "MLC451"
	BadTorch           Code = "MLC453"
	BadHostname        Code = "MLC452"
	ReservedPath       Code = "MLC550"
	BadClaim           Code = "MLC551"
	BadAccessModes     Code = "MLC552"
	BadVolumeMount     Code = "MLC553"
	BadURL             Code = "MLC554"
	NoObjectStore      Code = "MLC555"
	BadBucket          Code = "MLC556"
	URLNotWritable     Code = "MLC557"
	NeedsClaim         Code = "MLC558"
	BadCache           Code = "MLC559"
	CacheKeysCollide   Code = "MLC560"
	EngineCannotRun    Code = "MLC650"
	WorkspaceHidden    Code = "MLC652"
	IsolationUnsaid    Code = "MLC653"
	TooLarge           Code = "MLC651"
	BadFlag            Code = "MLC750"
	Internal           Code = "MLC751"
	CommandFailed      Code = "MLC752"
	BadStatement       Code = "MLC753"
	ResultUnproven     Code = "MLC754"
	ImageUnresolved    Code = "MLC755"
)

// The codes of the warnings and of the notes, in the same topics:
// MLC1xx reading the files, 2xx paths, params and names, 3xx resources
// and docker flags, 4xx distributed steps, 5xx storage, 6xx one
// engine's (Argo 60x, Tekton 62x, Job 64x), 7xx the command.
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
	TorchNotCarried          Code = "MLC405"
	DaskSetupNeedsRoot       Code = "MLC404"
	ClaimReadWriteMany       Code = "MLC501"
	ObjectStoreUnused        Code = "MLC502"
	DataClaimUnused          Code = "MLC503"
	ClaimPerRunDeleted       Code = "MLC504"
	StepNotCached            Code = "MLC505"
	CacheSettingUnused       Code = "MLC506"
	CachedByTag              Code = "MLC507"
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
	IsolationEgress          Code = "MLC630"
	TektonWorkspaceUnseen    Code = "MLC629"
	TektonCmdBeforeArgs      Code = "MLC631"
	JobNoRBAC                Code = "MLC643"
	JobNoCache               Code = "MLC644"
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
	GPUsFromFlag             Code = "MLC716"
)

// codeTable is every code, a row each: the errors, then the warnings and
// notes, each in the order of their part of docs/troubleshooting.md.
var codeTable = []CodeDoc{
	{FileUnreadable, Error, "a file cannot be read", "The file is missing, not a regular file, empty, binary or too large: the message says which. Give the path of the spec file itself.", nil},
	{YAMLSyntax, Error, "YAML the decoder refuses", "The message points at the mistake (a tab in the indentation, a line out of line, a quote or bracket left open, `: ` in a plain value) and says how to write it; quote a value that holds `: ` or starts with a special character.", nil},
	{DuplicateKey, Error, "a key written twice in one mapping", "YAML keeps one value of a key: keep one, or merge the two. The note after the error points at the first.", nil},
	{YAMLShape, Error, "a file nested too deep, or engine template syntax in a string", "Specs are shallow: flatten deep nesting. `{{`, `$(`, Jinja and cookiecutter syntax belong to an engine or a generator, not to a spec: write `${params.X}` for a parameter, or the value itself.", nil},
	{BadReference, Error, "an OmegaConf `${...}` reference that cannot be resolved", "A reference names a key of the same file (`${docker.image}`), which must exist, hold a scalar and not refer back to itself; `${runtime.root}`, resolvers such as `oc.env` and the environment do not exist on a cluster. Write the value, or name an existing key.", nil},
	{EnvFileLine, Error, "a line of an env file that is not `KEY=VALUE`", "Each line of an `envFile` is `KEY=VALUE`, a comment or empty, and the key is a valid variable name.", nil},
	{WrongFile, Error, "a file given where another kind is needed", "A pipeline file (with `steps:`) goes to `--task`, a cube to `--mlcube`, a platform to `--platform`; a Kubernetes manifest is no spec. Give each file to its flag.", nil},
	{MissingFile, Error, "a file the compilation needs is not there", "An MLCube 1.0 cube reads its tasks from `tasks/` and runs them through `run/`; a folder needs its `mlcube.yaml` or `container_config.yaml`. Create the file, or give the right folder.", nil},
	{UnknownField, Error, "a field the schema does not have", "The hint names the nearest field the schema has there: correct the spelling, or drop the field (`mlcube-compile schema` prints every field).", nil},
	{WrongValue, Error, "a value the schema refuses", "The message says what the field takes (a string, a number, one of a list, a pattern): write a value of that kind.", nil},
	{MissingField, Error, "a required field is missing", "Add the field the message names.", nil},
	{RunnerKeyUnknown, Error, "a key MLCube's docker or singularity runner refuses", "MLCube's runner checks its section's keys before it starts a container (`check_unknown_keys` in `docker_run.py` and `singularity_run.py`, `Config.validate`) and stops `mlcube run` with \"Unknown keys\": correct the spelling (the hint names the nearest key), or drop the key. Keys outside the runner sections that MLCube does not read stay warnings (MLC101).", nil},
	{OutputTypeUnknown, Error, "an output with no `type` and no trailing `/`", "MLCube cannot tell a file from a folder and stops `mlcube run` with \"Type cannot be unknown for output parameters\" (`generate_mounts_and_args`, `mlcube/shell.py`): give it `type: file` or `type: directory`, or end a folder's path in `/`.", nil},
	{RunnerValueRefused, Error, "a value MLCube's runner refuses", "MLCube's docker runner takes `--gpus` as `all`, a count or `device=IDS` (`DeviceSpecs.from_string`, `mlcube/parser.py`), and `image`, `docker` and `build_strategy` as strings that are not blank (`Validate`, `mlcube/validate.py`): write such a value.", nil},
	{LegacyRuntime, Error, "`container.runtime` in an MLCube 1.0 platform file", "MLCube 1.0's docker runner exits when `runtime` is set (\"The 'runtime' parameter is deprecated\"): write it as a docker flag, `run_args: --runtime=nvidia`, or, for GPUs, `--gpus=N`.", nil},
	{UnknownName, Error, "a name that is not there: a task, cube, step or parameter", "The message lists the names there are, and the hint the nearest: use one of them.", nil},
	{BadParamRef, Error, "a `${params.X}` reference that cannot be used", "A reference names a pipeline param, and only the pipeline file's args, env, paths and values may hold one: not a cube's own fields or configs, nor right after `$` or `{`. In an MPI or Dask step it takes the value `--set` or `-f` gives at compile time (a value given at submit time does not reach it), and is refused without one.", nil},
	{BadParam, Error, "a parameter declared wrong", "A param's name is letters, digits, `_` and `-`; a required param has no default; a default is one of its `enum`; a value the run needs now (a Job has no run-time parameters) is given with `--set` or `-f`; a cube parameter is an input or an output, not both.", nil},
	{NoNameChars, Error, "a name with no letters or digits", "Kubernetes names are made of letters and digits: rename the pipeline or step.", nil},
	{DependencyCycle, Error, "a dependency cycle", "The steps named read what each other writes, or name each other in `after:`: break the cycle by changing a path or an `after:`.", nil},
	{BadTaskList, Error, "a `--task` list or run files that do not name each task once", "List each task once, as `a,b,c`; a task with several run files is run by the file's name; a compact `.mlcube.yaml` names each run once.", nil},
	{Credential, Error, "a credential in a spec", "Anyone who reads the spec or the manifest could use it: put it in a Secret and name it with `secretEnv` (see [what it reads](specs.md#what-it-reads)).", nil},
	{BadEnv, Error, "an environment variable that cannot be set", "A name is letters, digits and `_`, not starting with a digit, and a variable comes from `env` or `secretEnv`, not both.", nil},
	{BadPathArg, Error, "a `NAME=PATH` argument that cannot be applied", "`NAME=PATH` sets a cube parameter's path when no pipeline file is given: give a path, name a parameter of the tasks run, or set it in the pipeline file. With a pipeline file, a param's value is `--set NAME=VALUE` (argo's `-p NAME=VALUE`), as the message says.", nil},
	{BadConfigs, Error, "`configs:` that cannot become a ConfigMap", "Each value must be writable as JSON and not null, and all of them fit in 1 MiB: put large data in the workspace.", nil},
	{BadShape, Error, "a spec with no steps or tasks, too many, or a step that needs its cube named", "A pipeline has 1 to 1000 steps and a cube at least one task; with several cubes each step names its `cube:`; a Dask step has no cube task.", nil},
	{MixedWriters, Error, "two steps write one path that a later step reads, and nothing orders the writers", "The reader would get whatever the writer that ran last left there, with the run succeeding. Give one writer a place of its own with its step's `outputs:` and say which one the reader reads with its `inputs:`; or, when the second writer rewrites the first's data in place, order it with `after:` (or let it read that data).", nil},
	{CubeFileClash, Error, "a cube's own input, kept under the cube's name in a pipeline of several cubes, lands on what a step writes", "In a pipeline whose `cubes:` names several cubes, a path that steps of two cubes read by their defaults, and no step writes, is each cube's own file, kept at `<cube>/<default path>`; a step writes there. Give the input a place with the step's `inputs:`, or rename the cube in `cubes:`.", nil},
	{ResultsTooLarge, Error, "a Tekton task's upload digests do not fit its termination message", "Tekton gives each output's sha256 as a task result, in the upload step's termination message, of which the kubelet keeps an even share of 12 KiB a pod (a task with a fetch, the step, an upload and Tekton's prepare init container: 3 KiB each), and the next task could not read a result cut short. Upload fewer, larger folders (one output folder in place of many files), or use `--backend argo`, which records the digests as output parameters.", nil},
	{BadQuantity, Error, "a quantity that is not one", "Write cpu, memory and sizes as Kubernetes quantities: `500m`, `4`, `512Mi`, `10Gi`.", nil},
	{BadDockerFlags, Error, "docker flags that cannot be read", "The cube's `gpu_args`/`cpu_args` (or a MedPerf container's `run_args`) must split as a shell would, and each flag that has a Kubernetes meaning take a valid value.", nil},
	{BadPlacement, Error, "a node selector or toleration the API server refuses", "Keys are label keys (an optional DNS prefix and `/`, then a name); a toleration without a key has `operator: Exists`, one with `Exists` has no value, and `tolerationSeconds` needs `effect: NoExecute`.", nil},
	{RootConflict, Error, "`runAsUser: 0` with `runAsNonRoot: true`", "The kubelet refuses to start such a container: give a non-zero `runAsUser`, or leave it out to run as the image's own non-root user.", nil},
	{BadCommand, Error, "a command that cannot be run", "An entrypoint must split into words as a shell would (close its quotes), and an MPI step needs a program for mpirun: give the task an entrypoint, or `mpi.entrypoint`.", nil},
	{NoImage, Error, "no image Kubernetes can run", "Set `docker.image` in the cube or `image` in the platform file; Singularity image files and other container types than docker do not run on Kubernetes.", nil},
	{BadRetry, Error, "retries or a timeout out of range", "At most 100 retries; durations are positive whole seconds, such as `30s`, `15m` or `4h`.", nil},
	{BadSchedule, Error, "a schedule that cannot run", "A cron expression has five fields (or `@daily`), the timezone is one of the IANA database (`UTC`, `Europe/Berlin`), and the concurrency policy is Allow, Forbid or Replace; a CronWorkflow needs a schedule.", nil},
	{BadQueue, Error, "a Kueue queue or priority Kueue cannot use", "Kueue admits Jobs, pods and v2beta1 MPIJobs, not DaskJobs or v1 MPIJobs, reads a WorkloadPriorityClass only on a queued workload, and label values stop at 63 characters (see [Kueue](kueue.md)).", nil},
	{BadGPURequest, Error, "GPUs asked for by Dynamic Resource Allocation in a way that cannot work", "A request names a `deviceClass` (a claim per pod, narrowed by an optional CEL `selector` over `device`) or an existing `sharedClaim`, not both, and not with `gpu.resource`; a step that writes them asks for GPUs; a claim holds at most 32 devices; pods that cannot carry claims (Dask workers) need a request a limit can say: no selector, no shared claim (see [GPUs by DRA](distributed.md#gpus-by-dynamic-resource-allocation)).", nil},
	{RunsAsRoot, Error, "a step that runs as root where the platform says `podSecurity: restricted`", "Kubernetes' restricted Pod Security Standard admits no pod that may run as root: drop `runAsNonRoot: false` and `runAsUser: 0`, and give a step whose image runs as root a non-zero `runAsUser` (see [Pod Security](backends.md#pod-security)).", nil},
	{EngineNotLocked, Error, "an engine whose own containers the restricted Pod Security Standard refuses", "Tekton gives its init containers (prepare, place-scripts, working-dir-initializer) and its affinity assistant a securityContext only with its `set-security-context` feature flag: set it to \"true\" in the `feature-flags` ConfigMap of `tekton-pipelines`, and say so with the platform's `tekton.setSecurityContext: true` (see [Pod Security](backends.md#pod-security)).", nil},
	{CannotLockDown, Error, "a step that cannot run under the restricted Pod Security Standard", "Its pods need what `restricted` takes away: MPI workers whose SSH server reads root's keys (`/root/.ssh`; run as a non-root user whose `~/.ssh` is `sshAuthMountPath`), kubeflow.org/v1 MPIJobs (the training operator's launcher has an init container the compiler does not control; use kubeflow.org/v2beta1), Dask setup packages that install as root (build an image with them) (see [Pod Security](backends.md#pod-security)).", nil},
	{BadMPI, Error, "MPI settings that cannot run", "kubeflow.org/v1 MPIJobs have no SSH settings and no MPICH, and an `fsGroup` breaks mpi-operator's SSH keys under `/root/.ssh` (see [distributed steps](distributed.md)).", nil},
	{BadDask, Error, "Dask settings that cannot run", "Packages are one name each; the output is a path inside the workspace or a bucket with its Secret; autoscale's minimum is at most its maximum (see [distributed steps](distributed.md)).", nil},
	{BadTorch, Error, "torch settings that cannot run", "A torch step needs a program for torchrun to start, processes per node that divide its GPUs, and no env var the Trainer sets itself (`PET_NNODES`, `PET_NPROC_PER_NODE`, `PET_NODE_RANK`, `PET_MASTER_ADDR`, `PET_MASTER_PORT`) (see [distributed steps](distributed.md)).", nil},
	{BadHostname, Error, "a distributed job whose derived names are too long", "The operator names worker pods and Services after the pipeline and the step, and they must be DNS labels of at most 63 characters: shorten the pipeline's or the step's name.", nil},
	{ReservedPath, Error, "a workspace mount path the runtime or an engine mounts", "`/dev`, `/proc`, `/sys`, `/tekton` and `/var/run/secrets` are taken: mount the workspace elsewhere, such as `/mnt/mlcube`.", nil},
	{BadClaim, Error, "a claim that cannot be named or made", "`storage.pvc` names an existing claim, while `size`, `storageClassName` and `accessModes` describe one to create: give one or the other; a claim's name is lower case letters, digits, `-` and `.`.", nil},
	{BadAccessModes, Error, "access modes the steps cannot work with", "A claim made for each run must be writable, and one several nodes mount must be ReadWriteMany: change `storage.accessModes`, or leave it out to let the compiler choose.", nil},
	{BadVolumeMount, Error, "a MedPerf volume that cannot be mounted", "A volume's location is a path inside the workspace; an output file is mounted by its folder, so its location ends in the file name of its `mount_path`; two volumes need two mount paths.", nil},
	{BadURL, Error, "an input URL the compiler cannot fetch", "An input given as a URL is `s3://bucket/key` (a folder when it ends in `/`), `http://` or `https://` naming one file, with an optional `#sha256=` and 64 hexadecimal digits; other schemes (gs, azure, file) are not fetched yet: copy the data to an S3 bucket. A MedPerf file volume cannot be a URL: give it a path on the claim `storage.pvc` names.", nil},
	{NoObjectStore, Error, "object storage used with no object store on the platform", "An `s3://` input and `storage.workspace: object` need the platform's `objectStore`: an `s3` bucket with its endpoint and Secret keys, or (Argo only) `artifactRepositoryRef` to the cluster's artifact repository.", nil},
	{BadBucket, Error, "a bucket name S3 refuses", "A bucket's name is 3 to 63 lower case letters, digits, `.` and `-`, starting and ending with a letter or digit, with no `..`, not shaped like an IP address, and not starting with `xn--` or ending in `-s3alias`.", nil},
	{URLNotWritable, Error, "a URL where a step writes", "A URL is read-only data fetched before the step starts: give an output a path in the workspace; with `storage.workspace: object` every output is uploaded to the object store when its step ends.", nil},
	{NeedsClaim, Error, "data only a shared claim can hold", "With `storage.workspace: object` every step has a volume of its own: an input no earlier step writes must be a URL (in the step's `inputs:`, or `NAME=s3://bucket/key` on the command line for a cube's tasks without a pipeline file), or be on the claim `storage.pvc` names; a distributed step's pods share their data while they run, which needs a claim.", nil},
	{BadCache, Error, "a cache the run cannot keep", "The cache lives in the bucket, beside the outputs it holds: `objectStore.cache` needs `objectStore.s3` and `storage.workspace: object`, where every output is uploaded; a run whose data stays on a claim has nothing to cache. Argo's `artifactGC` does not apply to a cached run, which moves its data with the tool image as Tekton does: drop one of them.", nil},
	{CacheKeysCollide, Error, "a step that collides with another, or with a task of the run's own", "Two steps that run the same task, with the same arguments and parameters, on the same inputs compute the same outputs, and both would write one entry of the cache: drop one, give them different arguments, or set `cache: false` on one. A step named `<step>-cache-key` has the name of the key task that runs before a cached step, and one named `mlcube-provenance` that of the task that writes the run's provenance: rename it.", nil},
	{EngineCannotRun, Error, "the backend cannot run this pipeline", "The message names what the engine lacks (a Job runs one task with no run-time parameters; Tekton's affinity assistant keeps a run's claims on one node): use another backend, or change the spec as it says.", nil},
	{WorkspaceHidden, Error, "Tekton would hide the step's program in `/workspace`", "Tekton mounts an emptyDir at `/workspace` in every step, over the image's own. Move the program out of `/workspace` in the image (and name its new place in the task's `entrypoint`), run the pipeline with `--backend argo` or `job`, or, on a cluster that serves image volumes (Kubernetes 1.35 or later, containerd 2.1 or CRI-O 1.31 or later), drop `imageWorkspace: none` so that the step mounts its image's `/workspace`; keep the step's own mounts out of `/workspace`.", nil},
	{IsolationUnsaid, Error, "a MedPerf step's NetworkPolicy cannot let its pod reach what it must", "Its data moves through Argo's artifact repository, whose endpoint the compiler does not know: name the bucket with `objectStore.s3`, keep the data on the claim (`storage.pvc`), or opt out of the isolation with `medperf: {network: allowed}` on the platform.", nil},
	{TooLarge, Error, "a manifest over an engine's or Kubernetes' size limit", "Split the pipeline into several that share the workspace claim, run the repeated part as a WorkflowTemplate, or move large values to a ConfigMap.", nil},
	{BadFlag, Error, "a flag or argument the command refuses", "The message says what the flag takes; `--help` lists the flags.", nil},
	{Internal, Error, "mlcube-compile failed on its own", "A bug: please report it with the command and the files, which the message names.", nil},
	{CommandFailed, Error, "the command could not finish", "Writing the output or reading from standard input failed: the message says why (a full disk, a missing folder, a closed pipe).", nil},
	{BadStatement, Error, "a provenance statement `verify` cannot read", "`mlcube-compile verify RESULT STATEMENT` reads the in-toto v1 Statement of SLSA v1 provenance that a run wrote beside its results (`<run uid>/provenance.intoto.json` in the bucket): give it that file, as the run wrote it.", nil},
	{ImageUnresolved, Error, "an image tag `lock` cannot resolve to a digest", "`mlcube-compile lock` asks each image's registry for the digest its tag names now, as `docker pull` would, with the credentials of `~/.docker/config.json` (`docker login`). The registry refused, or is not reachable from here: check the image's name and tag, log in to a private registry, and give `--insecure` for a registry served over plain HTTP (one on localhost or a private address is reached so already).", nil},
	{ResultUnproven, Error, "a result whose digest its statement does not name", "The result's sha256 (a folder's, as [caching](caching.md#the-key) says) is no subject's of the statement: the result was changed since the run wrote it, or it is another run's. Fetch it again from the run's folder, or check it against that run's statement.", nil},
	{KeyIgnored, Warning, "a key MLCube ignores", "MLCube reads a cube with OmegaConf and looks up only the keys it uses, so it ignores this one (an author's institution, `platform.CUDA_version`, a task's `description`); so does the compiler. Drop it, or keep it as a note to readers.", nil},
	{KeyWrittenTwice, Warning, "a key written twice in a file MLCube 1.0 reads", "PyYAML, which reads the file for MLCube 1.0, keeps the last value and drops the first; so does the compiler. Keep one.", nil},
	{BindingDropped, Warning, "a binding of a compact `.mlcube.yaml` that names no parameter", "MLCube 1.0 drops it when it unpacks the run; so does the compiler. Name a parameter of the task, or drop the binding.", nil},
	{PathOutsideWorkspace, Warning, "a 1.0 path without `$WORKSPACE`", "MLCube 1.0 takes it relative to the folder `mlcube` runs in; here it is relative to the workspace. Start it with `$WORKSPACE/`.", nil},
	{UnknownCode, Warning, "a disable comment names no warning's code", "`# mlcube-compile: disable CODE` takes the codes of this page (MLC301, …); correct the code, or drop the comment.", nil},
	{TaskNameIsFile, Warning, "`--task NAME` names tasks of the cube and a file here too", "A bare name that the cube has as a task runs that task, as `mlcube run --task NAME` does, though a file of that name is in the current folder: give `--task ./NAME` to read the file as a pipeline, or rename it.", nil},
	{DisableUnused, Warning, "a disable comment that silences nothing", "No warning of its code is reported at the comment's line or in the node it is on (the mapping entry or list item the warning names, any line of it), or, for `disable-file`, in the file: the code is wrong, the warning is gone, or the comment is on a line of another node. Remove the comment, or move it onto a line of the node the warning is at. Lint judges a comment on everything it reported for the file, every engine's and every platform's beside it: a comment for a Tekton warning is used when Tekton raised it. A compile for one backend does not judge an engine's codes (MLC6xx), nor the command's (MLC7xx); a compile of a part (`--task NAME`, `--step`) and a file of a compilation with errors are not judged.", nil},
	{PathInContainer, Warning, "an absolute path is in the container, not on the workspace", "Steps pass data only through paths on the workspace volume: make the path relative to the workspace.", nil},
	{PathTilde, Warning, "a path starting with `~`", "`~` is not expanded: MLCube and the compiler join it to the workspace as a folder named `~`. Write the path relative to the workspace.", nil},
	{PathLeavesWorkspace, Warning, "a path that leaves the workspace", "In the container it is outside the volume, so no other step sees it: keep the path inside the workspace.", nil},
	{NameCut, Warning, "the pipeline's name is cut", "Names stay within 40 characters so that every engine's suffixes fit: shorten `name:` to keep control of the name.", nil},
	{TaskBeforeWriter, Warning, "a `--task` list runs a task before the task that writes what it reads", "The list runs in its order, so the reader sees what was there before the writer ran: list the writer first if the reader needs its output.", nil},
	{Overwritten, Warning, "two steps of a pipeline write one path, and nothing orders one after the other", "Path flow runs two writers of one path in the file's order, and no step reads the path, so the run keeps only what the second writes there: the first's is written over (in a folder, the files both write by one name). Give one of them a place of its own with the step's `outputs:`; if the second rewrites the first's data in place on purpose, order it with `after:`. A step that reads the path makes this an error (MLC261).", nil},
	{ParamReachesNothing, Warning, "a param, or the value given to it, reaches no step", "No step of the compiled run refers to `${params.NAME}` (in its args, env, inputs or outputs), so its value changes nothing: refer to it where it is meant to go, or drop the param and the `-f` or `--set` value. With `--step`, only the steps compiled count.", nil},
	{TektonURIsLeftOut, Warning, "a Tekton task's upload results leave out the s3:// URIs or Tekton Chains' results", "The kubelet keeps 12 KiB of termination messages a pod, shared evenly by its containers, Tekton's init containers counted; a task's results go in its upload step's share. When the `-uri` results do not fit beside the `-sha256` results, only the digests are given: each output is still at `<bucket>/<run uid>/<step>/<output>`. The `<output>_ARTIFACT_OUTPUTS` results that Tekton Chains reads come after both, and are left out first. Split the step's outputs among fewer folders to have them all.", nil},
	{DockerGPUsUnasked, Warning, "a docker flag asks for GPUs, but the step asks for none", "`--gpus` or `--runtime=nvidia` where no GPUs are asked for is not applied: set `platform.accelerator_count` or the step's `resources.gpu`, or drop the flag.", nil},
	{DockerFlagNotApplied, Warning, "a docker flag with no Kubernetes equivalent", "A flag a pod cannot honour (`--privileged`, `--net=host`, `--ulimit`, `--security-opt`, `--cap-add`, a host path in `-v`) or that has no meaning here is not applied, and the message says what the container gets instead: drop the flag, or say it in the spec (resources, `storage`, env). `--ipc=host` and `-v /dev/shm:/dev/shm` are applied, as a memory-backed `/dev/shm`.", nil},
	{GPUCountDiffers, Warning, "`--gpus=N` differs from `platform.accelerator_count`", "The step asks for the cube's count: make them agree, or set the step's `resources.gpu`.", nil},
	{GPUsOfOneHost, Warning, "a MedPerf container's `gpus` names one host's devices", "`all` or `device=ID,...` name GPUs of one host, which a cluster cannot; the step asks for that many GPUs of whatever node runs it. Set the step's `resources.gpu` for another count.", nil},
	{LimitWithoutRequest, Warning, "the platform sets `limitsEqualRequests`, but the step requests no cpu or no memory", "It gets no limit for what it does not request, and a ResourceQuota that counts limits refuses the pod: give the step `resources.cpu` and `resources.memory`.", nil},
	{ShmInMemoryLimit, Warning, "`/dev/shm` counts against a memory limit", "With `limitsEqualRequests` the step's memory is also its limit, and `/dev/shm` (`--shm-size`) is memory charged to the container: raise `resources.memory` by the size of `/dev/shm`.", nil},
	{GPUsByDRA, Note, "GPUs asked for by Dynamic Resource Allocation", "The run needs Kubernetes 1.34 or later (`resource.k8s.io/v1`) and the DRA driver of the device class (`kubectl get deviceclass NAME`), or the shared claim (`kubectl get resourceclaim NAME`); without them the pods stay Pending, or run without GPUs on a cluster older than 1.34. On such a cluster ask for GPUs as an extended resource (`gpu.resource`); silence this where the cluster is known to serve them (see [GPUs by DRA](distributed.md#gpus-by-dynamic-resource-allocation)).", nil},
	{GPUsAsLimit, Warning, "GPUs by DRA asked for as the device class's extended resource", "Pods that cannot carry claims (Tekton's tasks, Dask workers) ask for the class's `extendedResourceName`, or `deviceclass.resource.kubernetes.io/<class>`, as a limit: Kubernetes maps it to the class only with its `DRAExtendedResource` feature (beta and on by default from 1.36; alpha and off in 1.34 and 1.35). On an older cluster turn the feature on, or ask for GPUs as an extended resource a device plugin serves (`gpu.resource`).", nil},
	{QueuedGPUClaims, Warning, "a queued step claims GPUs by DRA", "Kueue counts the claimed devices against the queue's quota through a `deviceClassMappings` entry for the class in its configuration, and leaves the workload inadmissible without one: add the mapping (see [Kueue](kueue.md)), or run the step outside the queue (`queue: \"\"`).", nil},
	{GPUsFromCube, Warning, "a step sets `resources` without `gpu`, and takes the cube's GPUs", "A step that says no `gpu:` gets the cube's `platform.accelerator_count` (a MedPerf task's `gpus`), as MLCube gives every task, with the platform's GPU node selector and tolerations, even when it sets cpu and memory (a step that asks for devices by DRA is not warned): set `resources.gpu: 0` for a step that runs on CPU, or the count it needs.", nil},
	{GPUSettingUnused, Warning, "a platform `gpu:` setting, and no step asks for a GPU", "The platform's `gpu:` settings (the resource, the DRA device class, the GPU nodes' `nodeSelector` and `tolerations`) go only to pods that ask for GPUs, and no step of this run does (with `--step`, of the steps compiled). Give a step that needs them `resources.gpu`, or compile this run with a platform file without them.", nil},
	{CPUPlacementUnused, Warning, "the platform's `cpu:` placement, and every step asks for GPUs", "`cpu.nodeSelector` and `cpu.tolerations` place the pods that ask for no GPU, and every pod of this run asks for GPUs and is placed by `gpu:`: give a CPU-only step `resources.gpu: 0`, or drop `cpu:` for this run.", nil},
	{PlatformSettingUnused, Warning, "a platform setting that no step of the run uses", "The message names the setting and the steps it is for: `mpi.apiVersion` (mpi: steps), `jobServiceAccountName` (the pods of mpi:, torch: and dask: jobs), `kubectlImage` (the pods that create those jobs and MedPerf output files, and the containers that make a step's output folders), `image` (every step but dask: steps), `queue` and `workloadPriorityClass` (steps that take the platform's queue), `priorityClassName` (steps without their own), `multiKueue` (queued mpi: and torch: steps). Nothing in this run uses it: drop it from the platform file this run reads, or give the run the step it is for. `lint` says this, and MLC314, MLC315, MLC502 and MLC503, only when every compilation that reads the platform file (its pipeline's, its cube's alone) says it.", nil},
	{QueuedGPUsAsLimit, Warning, "a queued step asks for GPUs by DRA as a limit", "A TrainJob's node pods (every engine) and a Tekton task's pod cannot carry claims, so they ask for GPUs by DRA as the device class's extended resource. Kueue v0.19.2 counts that limit as a resource of its own name: it maps a limit to a device class only through the class's `spec.extendedResourceName`, and only with its alpha `KueueDRAIntegrationExtendedResource` gate on, never the `deviceclass.resource.kubernetes.io/<class>` name Kubernetes gives every class, and a `deviceClassMappings` entry does not count it. List the name the message gives in the queue's ClusterQueue's `coveredResources`, with a quota, or the workload stays pending (\"resource ... unavailable in ClusterQueue\"). The quota is apart from the one a claim of the same class counts against (MLC309); to count both against one, give the DeviceClass an `extendedResourceName`, set it as the platform's `gpu.extendedResourceName`, map the class in `deviceClassMappings`, and turn the gate on (`resolveQuotaKey`, `pkg/dra/extended_resources.go`). See [Kueue](kueue.md).", nil},
	{PreemptionRetried, Warning, "Tekton retries a queued step whatever failed it", "Kueue preempts a queued pod by deleting it, and a Tekton task that is not retried then fails the run, while a queued Job, MPIJob or TrainJob is suspended and requeued. So a queued container step without `retries:` gets 3 retries on Tekton, and Tekton retries a TaskRun whatever failed it: a program that fails runs again too. Give the step `retries:` to choose the count (`retries: {limit: 0}` runs it once, and a preemption then fails the run). On Argo the compiler's retries cover only a deleted or killed pod. See [Kueue](kueue.md).", nil},
	{BackoffNotApplied, Warning, "a step's `retries.backoff` that its engine does not apply", "Tekton retries at once; a Job waits with its own growing backoff (10s, 20s, 40s, … up to 6m). Drop `backoff` to silence this, or use `--backend argo`, which applies it. It had a code per engine before, MLC625 (Tekton) and MLC641 (Job), which `--disable` and disable comments still take.", []Code{"MLC625", "MLC641"}},
	{DaskWorkersUnsized, Warning, "the Dask workers get no cpu or memory", "Each worker sizes itself from the node, not its pod, and the kubelet may evict it before Dask spills: give `dask.worker: {cpu, memory}`.", nil},
	{SSHKeysUnreadable, Warning, "MPI workers run as a user whose SSH server cannot read the keys", "Set `sshAuthMountPath` to that user's `~/.ssh`, as mpi-operator's non-root examples do (see [distributed steps](distributed.md)).", nil},
	{RanksPerGPU, Warning, "`slotsPerWorker` differs from the GPUs per worker", "Horovod and torch.distributed run one rank per GPU: leave `slotsPerWorker` out, or make it the GPUs per worker.", nil},
	{TorchNotCarried, Warning, "a setting a TrainJob cannot carry to its node pods", "Trainer v2.3.0's runtime patches have no `priorityClassName` and no `imagePullPolicy`: the nodes run at the runtime's priority and pull policy. Use Kueue's `workloadPriorityClass` for queued steps, or set them in a runtime of your own.", nil},
	{DaskSetupNeedsRoot, Warning, "the Dask pods run as a user that cannot install `setup` packages", "The image installs them at start with apt-get (which needs root) and pip or conda into the image: run as root, or build the packages into the image.", nil},
	{ClaimReadWriteMany, Warning, "the claim made for each run is ReadWriteMany", "Steps on several nodes mount it at once, so its storage class must offer ReadWriteMany (NFS, EFS, Filestore): use one that does, or an existing claim.", nil},
	{ObjectStoreUnused, Warning, "the platform's `objectStore`, and nothing of the run is in it", "The object store is used by `storage.workspace: object` and by inputs given as `s3://` URLs (`toolImage` by any URL input); this run has neither, so its data stays on the claim: give `storage.workspace: object` or an input's URL if the bucket was meant, or drop `objectStore` for this run.", nil},
	{DataClaimUnused, Warning, "`storage.pvc` beside `storage.workspace: object`, and no input is read from it", "With an object workspace the claim `storage.pvc` names holds only the inputs no step writes, mounted read-only; every input of this run is written by an earlier step or given as a URL, so no pod mounts the claim: drop `storage.pvc`, or give an input its path on the claim.", nil},
	{ClaimPerRunDeleted, Warning, "the claim made for each run goes with the run", "Argo deletes it when the run succeeds (`volumeClaimGC`), Tekton with the PipelineRun that owns it, a Job with its pod (an ephemeral volume); the results written there go with it: use an existing claim (`storage.pvc`) to keep them. It had a code per engine before, MLC606 (Argo), MLC627 (Tekton) and MLC642 (Job), which `--disable` and disable comments still take.", []Code{"MLC606", "MLC627", "MLC642"}},
	{StepNotCached, Warning, "a step the cache cannot key, which runs every time", "A step's key is made of what it runs and the digests of what it reads ([caching](caching.md#the-key)). Its image needs a digest (`image@sha256:…`, or the platform's `imageDigests`, which `mlcube-compile lock` prints), or the platform's `objectStore.cache.imageTags: true` to key it by its tag; a step that writes to a claim, or a distributed step, is not cached. Set `cache: false` on the step to say it is meant to run every time.", nil},
	{CachedByTag, Warning, "a cached step whose image is a tag alone", "With `objectStore.cache.imageTags: true` a step whose image has no digest is keyed by its tag: an image pushed again under that tag gets the old image's outputs from the cache. Lock the tag to a digest with the platform's `imageDigests`, which `mlcube-compile lock` prints from the registry, or name the image `image@sha256:…`.", nil},
	{CacheSettingUnused, Warning, "a step's cache setting with no cache on the platform", "`cache:` on a step says whether the platform's cache keeps it: add `objectStore.cache` to the platform, or drop the step's setting.", nil},
	{ArgoV4TooManyTemplate, Warning, "more templates than Argo v4's CRDs take", "A v4 cluster installed from its release manifests refuses the object, while v3.7 and v4 with the minimal CRDs take it: split the pipeline (see [backends](backends.md#supported-versions)).", nil},
	{ArgoV4TooManyTasks, Warning, "a DAG with more tasks than Argo v4's CRDs take", "As for MLC601: split the pipeline.", nil},
	{ArgoV4TooManyParams, Warning, "a template with more input parameters than Argo v4's CRDs take", "As for MLC601: pass fewer parameters to one template.", nil},
	{ArgoV4Schedule, Warning, "a schedule Argo v4's CRDs refuse", "They take five fields of letters, digits and `*,/?-`, without a `TZ=` prefix: set the time zone with `timezone:`.", nil},
	{ArgoConfigMapAccount, Warning, "the Workflow applies its ConfigMap with the namespace's default service account", "That account cannot create configmaps unless an administrator granted it: compile with `--emit-rbac` (it makes the run an account with create, get and patch on configmaps), or name an account set up for runs with `serviceAccountName` on the platform.", nil},
	{ArgoClaimOneNode, Warning, "steps that may run at once mount a claim that attaches to one node", "Argo does not keep them on one node: use a ReadWriteMany claim, or order the steps with `after:`.", nil},
	{ArgoClaimTemplateAccount, Warning, "the Workflow applies its ResourceClaimTemplate with the namespace's default service account", "That account cannot create resourceclaimtemplates unless an administrator granted it: compile with `--emit-rbac` (it makes the run an account with create, get and patch on them), or name an account set up for runs with `serviceAccountName` on the platform.", nil},
	{ArgoArtifactGCAccount, Warning, "Argo's artifact GC pod runs as the namespace's default service account", "That account cannot read the run's `workflowartifactgctasks` unless an administrator granted it, and the run's Workflow is deleted all the same (`forceFinalizerRemoval`), leaving its data in the bucket: compile with `--emit-rbac` (it makes the run an account the GC pod runs as, with list and watch on `workflowartifactgctasks` and patch on their status), or name an account with those rights with `serviceAccountName` on the platform.", nil},
	{TektonNoStartFlag, Warning, "`tkn pipeline start` has no flag for what the run needs", "Print the run with `--dry-run -o yaml` added to its flags, add the field the message names, and create it with `kubectl create -f`.", nil},
	{TektonStartFlag, Warning, "a Pipeline needs flags of `tkn pipeline start`", "Start it with the command line the message ends with, which writes the files its flags name and runs `tkn pipeline start` with every flag the run needs (`--pipeline-timeout 0`, `-p`, `-s`, `-w`, `--pod-template`); replace each `VALUE` with a param's value.", nil},
	{TektonGPUUnplaced, Warning, "a GPU step without a node selector, placed by Tekton's affinity assistant", "The assistant runs it on its own node, which may have no GPU: give the platform's `gpu.nodeSelector`, or use `coschedule: disabled` with a ReadWriteMany claim ([Tekton](backends.md#--backend-tekton-a-tekton-pipelinerun-or-a-pipeline)).", nil},
	{TektonClaims, Warning, "a step mounts several claims under the affinity assistant", "With `coschedule: workspaces` Tekton refuses a TaskRun with more than one: the cluster needs `coschedule: pipelineruns` or `disabled`.", nil},
	{TektonParamNoDefault, Warning, "params without a default in a PipelineRun", "Give them values in the PipelineRun's `spec.params` before `kubectl create -f`.", nil},
	{TektonNoTTL, Warning, "a PipelineRun has no `ttlSecondsAfterFinished`", "Set up Tekton's pruner to delete finished runs.", nil},
	{IsolationEgress, Warning, "a MedPerf step's pod keeps some egress", "MedPerf runs its containers with the network off; the run's NetworkPolicy shuts the step's pod off too, but a policy is the pod's, and the containers beside the user's (Argo's executor, which calls the API server; the movers of an object store) need what the message lists, which the user's container can then reach. Keep the data on the claim (`storage.pvc`) and use `--backend tekton` or `job` for a pod with no egress at all, or opt out with `medperf: {network: allowed}` on the platform.", nil},
	{TektonWorkspaceUnseen, Warning, "a Tekton step runs a script relative to its image's working directory, and Tekton hides the image's `/workspace`", "Tekton mounts an emptyDir at `/workspace` in every step; the compiler cannot see whether that is the image's working directory (pytorch/pytorch's is). If it is, set `tekton: {imageWorkspace: always}` on the platform, which mounts each step's image's `/workspace` as an image volume, or name the script by its absolute path in the task's `entrypoint`; if it is not, `imageWorkspace: none` or `--disable MLC629` silences this.", nil},
	{TektonCmdBeforeArgs, Warning, "a MedPerf task's `run_args.command` on Tekton, in an image whose ENTRYPOINT the platform does not say", "Docker runs the command after the image's ENTRYPOINT, or alone when the image has none; Tekton runs an image without ENTRYPOINT by its CMD, then the command (`python3 python3 /project/prepare.py` in an image FROM python). Say the image's ENTRYPOINT on the platform, `tekton: {imageEntrypoints: {IMAGE: []}}` for none, and the step names its command itself; for an image that has one, `[its words]`, or `--disable MLC631`.", nil},
	{JobNoRBAC, Warning, "`--emit-rbac` adds nothing to a Job", "A Job calls no Kubernetes API: drop the flag.", nil},
	{JobNoCache, Warning, "a Job runs its step whatever the cache holds", "A Job is one pod with no step before it to look the key up in, and nothing can skip its container: it runs the step and uploads its outputs to the run's keys, and writes no entry of the cache. Use `--backend argo` or `tekton` to skip a step whose key is in the cache.", nil},
	{ScheduleUnused, Warning, "a schedule used only by a CronWorkflow", "Add `--kind cronworkflow`, or ignore it for a one-off run.", nil},
	{BackendLeftOut, Warning, "`--backend all` leaves out a backend that cannot run the spec", "Such as the job backend for several tasks: expected; name the backends you want with `--backend`.", nil},
	{OutputStale, Warning, "an earlier compile's file in the `--output` folder", "This compile emits nothing for it: remove it before applying the folder.", nil},
	{GlobUnmatched, Warning, "a lint `--platform`, `--task` or `--exclude` glob matched nothing", "A glob with a `/` is matched from each path lint is given, as `.gitignore` matches (`clusters/*.yaml` under `lint plat` is `plat/clusters/*.yaml`; `**` stands for any folders), or against the path as typed; one without a `/` against each file's and folder's name. Correct the glob, or drop it.", nil},
	{PlatformRead, Note, "the platform file read because it is beside the pipeline or the cube", "The command line named no platform file, so the one beside the pipeline (or the cube) was read: `-p FILE` reads another; `--disable MLC710` drops the note.", nil},
	{NoPlatformRead, Note, "no platform file read for a pipeline on standard input", "A pipeline on standard input has no folder to find `platform.yaml` beside: `-p FILE` reads one.", nil},
	{FileSkipped, Note, "lint skipped a YAML file that is not a spec", "`lint --verbose` names each: a values file or another tool's YAML is skipped; name a spec `mlcube.yaml`, `platform.yaml` or `pipeline.yaml`, or match it with `--task GLOB` or `--platform GLOB`.", nil},
	{ResultsKept, Note, "where a run on an object workspace keeps its results", "The outputs no later step reads are the run's results: each is uploaded to the bucket at `<run uid>/<step>/<output>` and kept, even when `objectStore.artifactGC` deletes the run's other artifacts; `--disable MLC713` drops the note.", nil},
	{InputsNeeded, Note, "what must be on the claim before the run starts", "The run reads these paths and no step writes them: put each on the claim named (with `storage.workspace: object`, on `storage.pvc`'s claim) before the run starts, or give the step's `inputs:` a URL. In a pipeline whose `cubes:` names several cubes, a cube's own default inputs are under the cube's name (`<cube>/<default path>`). A path written with `${params.X}` is shown with X's value (`--set`, a values file, or its default); a param with no value until the run starts stays `${params.X}`. With a cache, the note also names the steps the cache keys by what the claim holds: each costs a read of that data whole before the step, and another after it ([caching](caching.md#the-key)).", nil},
	{CompiledAlone, Note, "lint: an error of a cube compiled alone that the pipeline reading it does not have", "Lint compiles a cube beside a pipeline twice: as the pipeline compiles it, and alone, every task in the file's order, as `mlcube-compile -m DIR` does. An error only the compile alone finds (an input the pipeline gives as a URL, a value the pipeline sets) is not the folder's, so it is a note, with the error's own code in parentheses; it matters only to those who compile the cube alone. `--disable MLC715` drops the note.", nil},
	{GPUsFromFlag, Note, "the GPUs a step asks for, read from a docker `--gpus` flag", "MLCube takes the docker section's `--gpus` over `platform.accelerator_count`, and a 1.0 platform file's `run_args` go to `docker run` as they are: the step asks for the count (`--gpus=N`), the number of devices (`device=0,1`), or 1 for `all` (a pod asks for a number of GPUs, not a host's devices). Give the step `resources.gpu: N`, or write `--gpus=N`, for another count; `--disable MLC716` drops the note.", nil},
}
