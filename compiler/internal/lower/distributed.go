package lower

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/mlcube-compile/mlcube-compile/compiler/graph"
	"github.com/mlcube-compile/mlcube-compile/compiler/internal/spec"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

const (
	defaultMPIAPIVersion    = "kubeflow.org/v2beta1"
	defaultSSHAuthMountPath = "/root/.ssh"
	mpiV1                   = "kubeflow.org/v1" // lowerMPI refuses what it lacks
	// defaultKubectlImage runs the kubectl steps of distributed jobs on
	// Tekton: alpine-docker's kubectl image, kubectl on Alpine, whose
	// busybox gives the wait script sh, date, sleep and printf. Bitnami
	// removed its version tags; registry.k8s.io/kubectl has no shell.
	defaultKubectlImage = "docker.io/alpine/kubectl:1.34.1"
)

// defaultWorkerCommand runs the SSH server the launcher reaches workers
// through, in the foreground, as mpi-operator's examples do.
var defaultWorkerCommand = []string{"/usr/sbin/sshd", "-De"}

// lowerMPI makes s an MPI step: the launcher runs mpirun over every slot
// with the task's entrypoint, and each worker gets the step's resources.
func (sl *stepLowering) lowerMPI(s *ir.Step) {
	st := sl.st
	m, at := st.MPI, st.Loc.Field("mpi")
	job := &ir.MPIJob{
		APIVersion:              sl.plat.MPI.APIVersion,
		GenerateName:            sl.p.Name + "-" + s.Name + "-",
		Workers:                 m.Workers,
		SlotsPerWorker:          1,
		Implementation:          m.Implementation,
		SSHAuthMountPath:        m.SSHAuthMountPath,
		WorkerCommand:           m.WorkerCommand,
		TTLSecondsAfterFinished: sl.plat.TTLSeconds,
	}
	if job.APIVersion == "" {
		job.APIVersion = defaultMPIAPIVersion
	}
	sl.diags = append(sl.diags, slots(st, s, job)...)
	if job.Implementation == "" {
		job.Implementation = "OpenMPI"
	}
	sl.diags = append(sl.diags, mpiUser(sl.plat, at, s, job)...)
	sl.diags = append(sl.diags, checkSSHKeys(st, sl.plat, s, job)...)
	if len(job.WorkerCommand) == 0 && job.APIVersion != mpiV1 {
		job.WorkerCommand = defaultWorkerCommand
	}
	sl.diags = append(sl.diags, checkMPIV1(st, sl.plat)...)
	entry := s.Command
	if len(entry) == 0 && m.Entrypoint != "" {
		var diags diag.Diagnostics
		entry, diags = words(m.Entrypoint, at.Field("entrypoint"))
		sl.diags = append(sl.diags, diags...)
	}
	if len(entry) == 0 {
		sl.diags = append(sl.diags, diag.Errorf(diag.BadCommand, at,
			"mpirun needs a program to start on every slot, and task %q of cube %q has no entrypoint",
			st.Task.Name, st.Cube.Name).
			WithFix("give one with mpi.entrypoint (the command the image's ENTRYPOINT runs)"))
	}
	launcher := []string{"mpirun"}
	if job.Implementation == "OpenMPI" && !runsAsNonRoot(s.SecurityContext) {
		launcher = append(launcher, "--allow-run-as-root")
	}
	launcher = append(launcher, "-np", strconv.Itoa(job.Workers*job.SlotsPerWorker))
	s.Command = append(append(launcher, forwardEnv(job.Implementation, s.Env)...), entry...)
	if m.Launcher != nil {
		job.Launcher = sl.resourceOverride(*m.Launcher, "mpi", "launcher")
	}
	job.LauncherNodeSelector, job.LauncherTolerations = sl.placement(false)
	job.ManagedBy = managedBy(sl.plat, s)
	s.Kind, s.MPI = ir.MPI, job
}

// checkMPIV1 refuses what kubeflow.org/v1 MPIJobs lack.
func checkMPIV1(st *spec.Step, plat *spec.Platform) diag.Diagnostics {
	var diags diag.Diagnostics
	m, at := st.MPI, st.Loc.Field("mpi")
	if plat.MPI.APIVersion == mpiV1 && m.SSHAuthMountPath != "" {
		diags = append(diags, diag.Errorf(diag.BadMPI, at.Field("sshAuthMountPath"),
			"kubeflow.org/v1 MPIJobs (the training operator's) start ranks through kubectl exec, not SSH, and lack "+
				"sshAuthMountPath").
			WithFix("drop it, or use mpi-operator's kubeflow.org/v2beta1"))
	}
	if plat.MPI.APIVersion == mpiV1 && m.Implementation == "MPICH" {
		diags = append(diags, diag.Errorf(diag.BadMPI, at.Field("implementation"),
			"kubeflow.org/v1 MPIJobs (the training operator's) take OpenMPI or Intel, not MPICH").
			WithFix("use mpi-operator's kubeflow.org/v2beta1, the default when the platform's mpi.apiVersion is unset"))
	}
	return diags
}

// slots is how many ranks each worker runs: slotsPerWorker, else one per
// GPU of the worker (mpirun -np is workers × slots, so a worker with 8
// GPUs and one slot would leave 7 idle), else one.
func slots(st *spec.Step, s *ir.Step, job *ir.MPIJob) diag.Diagnostics {
	var diags diag.Diagnostics
	gpus := s.Resources.GPU
	switch m := st.MPI; {
	case m.SlotsPerWorker == nil && gpus > 1:
		job.SlotsPerWorker = gpus
	case m.SlotsPerWorker != nil:
		job.SlotsPerWorker = *m.SlotsPerWorker
		if gpus > 0 && job.SlotsPerWorker != gpus {
			diags = append(diags, diag.Warnf(diag.RanksPerGPU, st.Loc.Field("mpi").Field("slotsPerWorker"),
				"%d ranks per worker on %d GPUs per worker, not one rank per GPU", job.SlotsPerWorker, gpus).
				WithFix(fmt.Sprintf("leave slotsPerWorker out to get %d", gpus)).
				WithDetail("Frameworks such as Horovod and torch.distributed run one rank per GPU."))
		}
	}
	return diags
}

// checkSSHKeys refuses what breaks mpi-operator's SSH keys. The
// controller mounts the key Secret at sshAuthMountPath with mode 0600
// when that is /root/.ssh (pkg/controller/mpi_job_controller.go,
// setupSSHOnPod, v0.8.0); an fsGroup makes the kubelet add group read
// to it, and ssh then refuses the key as too open
// (kubeflow/mpi-operator#429). Keys elsewhere are owned by root, which
// ssh accepts for another user.
func checkSSHKeys(st *spec.Step, plat *spec.Platform, s *ir.Step, job *ir.MPIJob) diag.Diagnostics {
	var diags diag.Diagnostics
	sc := s.SecurityContext
	if job.APIVersion == mpiV1 || sc == nil || sc.FSGroup == nil || job.SSHAuthMountPath != defaultSSHAuthMountPath {
		return nil
	}
	owner := plat.Loc
	if st.SecurityContext != nil && st.SecurityContext.FSGroup != nil {
		owner = st.Loc
	}
	diags = append(diags, diag.Errorf(diag.BadMPI, owner.Field("securityContext").Field("fsGroup"),
		"fsGroup %d makes the SSH key at /root/.ssh group-readable, which ssh refuses (kubeflow/mpi-operator#429)",
		*sc.FSGroup).
		WithFix("run the step as a non-root user with sshAuthMountPath set to its ~/.ssh (as mpi-operator's images do: "+
			"runAsUser 1000, /home/mpiuser/.ssh), or leave fsGroup out").
		WithDetail("mpi-operator mounts the SSH key at /root/.ssh with mode 0600 (setupSSHOnPod, v0.8.0), and an fsGroup "+
			"makes the kubelet add group read to it; ssh refuses such a key (\"bad permissions\"), so the launcher cannot "+
			"reach the workers."))
	return diags
}

// forwardEnv passes every variable of the step's env to every rank. The
// ranks on the workers start from the SSH server's environment, not the
// pod's, so mpirun must forward the launcher's: OpenMPI forwards only
// what -x NAME names; Intel MPI and MPICH (Hydra) forward everything with
// -genvall, their default, written out so that no launcher setting turns
// it off. -genvlist would narrow it to the names given and drop the
// image's PATH and LD_LIBRARY_PATH.
func forwardEnv(implementation string, env []ir.EnvVar) []string {
	if implementation != "OpenMPI" {
		return []string{"-genvall"}
	}
	var out []string
	for _, e := range env {
		out = append(out, "-x", e.Name)
	}
	return out
}

// lowerDaskStep lowers a step that runs a function on a Dask cluster.
func (sl *stepLowering) lowerDaskStep() (*ir.Step, graph.IO) {
	st, name := sl.st, sl.name
	d := st.Dask
	s := &ir.Step{
		Name: name, Loc: st.Loc, Kind: ir.Dask,
		Template:        sl.daskTemplateName(name),
		ImagePullPolicy: sl.plat.ImagePullPolicy,
		Labels:          map[string]string{taskLabel: labelValue(lastWord(d.Function))},
	}
	s.Image, s.ImageLocked = pinned(sl.plat, d.Image)
	job := &ir.DaskJob{
		Form:         daskForm(sl.plat),
		GenerateName: sl.p.Name + "-" + name + "-",
		Function:     d.Function, Args: d.Args,
		Workers: d.Workers, Autoscale: d.Autoscale,
		PipPackages: d.Setup.Pip, AptPackages: d.Setup.Apt, CondaPackages: d.Setup.Conda,
		OutputSecret: d.Output.Secret,
	}
	if d.Worker != nil {
		job.Worker = sl.resourceOverride(*d.Worker, "dask", "worker")
	}
	job.Worker = sl.daskWorkerGPUs(job.Worker)
	job.WorkerNodeSelector, job.WorkerTolerations = sl.placement(job.Worker.GPU > 0)
	var io graph.IO
	out := cleanKeepParams(d.Output.Path)
	switch {
	case d.Output.Bucket != "":
		job.Output = "s3://" + d.Output.Bucket + "/" + strings.TrimPrefix(out, "/")
		if !slices.Contains(job.PipPackages, "s3fs") {
			job.PipPackages = append(append([]string{}, job.PipPackages...), "s3fs")
		}
	case !spec.InWorkspace(d.Output.Path):
		sl.diags = append(sl.diags, diag.Errorf(diag.BadDask, st.Loc.Field("dask").Field("output").Field("path"),
			"%q: give a file path inside the workspace, such as results/benchmark.csv, or a bucket", d.Output.Path))
	case sl.plat.Storage.Object():
		// Nothing would upload the table from the client's pod.
		sl.diags = append(sl.diags, diag.Errorf(diag.NeedsClaim, st.Loc.Field("dask").Field("output").Field("path"),
			"storage.workspace is object, and no claim holds a workspace for the Dask step to write its table to").
			WithFix("give output.bucket (and output.secret) to write the table to object storage, or use "+
				"storage.workspace: claim"))
	default:
		job.Output = path.Join(sl.mountPath, out)
		s.Mounts = []ir.Mount{{Volume: sl.workspace(), MountPath: sl.mountPath}}
		io.Writes = append(io.Writes, graph.Qualify(workspaceVolume, out))
	}
	sl.diags = append(sl.diags, daskPackages(st, d)...)
	s.Env = sl.env(spec.DockerEffects{})
	s.Resources = sl.resources(st.Resources, st.Loc.Field("resources"), st.Loc, 0, spec.DockerEffects{})
	sl.diags = append(sl.diags, sizeDaskWorkers(st, s, job)...)
	sl.scheduling(s, false)
	sl.diags = append(sl.diags, checkRootForSetup(st, sl.plat, s, d)...)
	sl.diags = append(sl.diags, retryAndTimeout(st, s)...)
	sl.queue(s)
	job.ManagedBy = managedBy(sl.plat, s)
	if job.Form == ir.DaskJobSet && job.Autoscale != nil {
		sl.diags = append(sl.diags, diag.Errorf(diag.BadDask, st.Loc.Field("dask").Field("workers"),
			"a JobSet runs a fixed number of workers, and workers gives a range").
			WithFix(fmt.Sprintf("give workers a number, such as %d, or set dask.kind: DaskJob in the platform file "+
				"for the Dask operator, which scales them", job.Autoscale.Maximum)).
			WithDetail("The platform's dask.kind is JobSet (the default): JobSet's replicated jobs have a fixed size, "+
				"and Kueue admits that size whole."))
	}
	s.Dask = job
	return s, io
}

// daskForm is what the platform makes Dask steps of: a JobSet unless it
// asks for the Dask operator's DaskJob.
func daskForm(plat *spec.Platform) ir.DaskForm {
	if plat.Dask.Kind == string(ir.DaskOperator) {
		return ir.DaskOperator
	}
	return ir.DaskJobSet
}

// daskTemplateName names the definitions a Dask step's job is built from.
func (lw *lowering) daskTemplateName(step string) string {
	n, _ := lw.templates.take("dask\x00"+step, step, "dask-"+step)
	return n
}

// resourceOverride reads a resources mapping written at st's sels, its
// quantities right under it (mpi.launcher.cpu).
func (sl *stepLowering) resourceOverride(r spec.Resources, sels ...string) ir.Resources {
	at := sl.st.Loc
	for _, s := range sels {
		at = at.Field(s)
	}
	gpus := 0
	if r.GPU != nil {
		gpus = *r.GPU
	}
	return sl.resources(r, at, at, gpus, spec.DockerEffects{})
}

// checkRootForSetup warns when the image's prepare.sh, which installs the
// setup packages with apt-get, conda and pip into the image's own
// folders, would run as a user that may not write there.
func checkRootForSetup(st *spec.Step, plat *spec.Platform, s *ir.Step, d *spec.Dask) diag.Diagnostics {
	var diags diag.Diagnostics
	if len(d.Setup.Apt)+len(d.Setup.Pip)+len(d.Setup.Conda) == 0 || !runsAsNonRoot(s.SecurityContext) {
		return nil
	}
	if plat.PodSecurity == ir.PodSecurityRestricted {
		diags = append(diags, diag.Errorf(diag.CannotLockDown, st.Loc.Field("dask").Field("setup"),
			"podSecurity is restricted, so the Dask pods run as a non-root user, who cannot install the setup packages").
			WithFix("build an image with the packages in it, and drop setup").
			WithDetail("%s", setupNeedsRoot))
		return diags
	}
	diags = append(diags, diag.Warnf(diag.DaskSetupNeedsRoot, st.Loc.Field("dask").Field("setup"),
		"the Dask pods run as %s, who cannot install the setup packages", nonRootUser(s.SecurityContext)).
		WithFix("build an image with the packages in it, or run the Dask step as root").
		WithDetail("%s", setupNeedsRoot))
	return diags
}

// setupNeedsRoot says why a non-root user cannot install dask.setup's
// packages.
const setupNeedsRoot = "The image installs setup packages at start with apt-get, which needs root, and pip or conda " +
	"into the image's own environment, owned by root, so a non-root user's installs fail."

// runsAsNonRoot says whether the step's containers run as a user other
// than root: runAsUser is not 0 or, without runAsUser, runAsNonRoot is
// true. The kubelet then refuses to start an image whose user is root
// (verifyRunAsNonRoot, pkg/kubelet/kuberuntime/security_context_others.go),
// so the container runs as the image's non-root user, whatever its uid.
func runsAsNonRoot(sc *ir.SecurityContext) bool {
	switch {
	case sc == nil:
		return false
	case sc.RunAsUser != nil:
		return *sc.RunAsUser != 0
	default:
		return sc.RunAsNonRoot != nil && *sc.RunAsNonRoot
	}
}

// nonRootUser names the user a non-root step runs as, for messages.
func nonRootUser(sc *ir.SecurityContext) string {
	if sc.RunAsUser != nil {
		return "user " + strconv.FormatInt(*sc.RunAsUser, 10)
	}
	return "the image's non-root user (runAsNonRoot)"
}

func lastWord(dotted string) string {
	return dotted[strings.LastIndex(dotted, ".")+1:]
}

// daskPackages refuses package names that the image's start script
// would split or read as options.
func daskPackages(st *spec.Step, d *spec.Dask) diag.Diagnostics {
	var diags diag.Diagnostics
	for _, list := range []struct {
		key  string
		pkgs []string
	}{{"pipPackages", d.Setup.Pip}, {"aptPackages", d.Setup.Apt}, {"condaPackages", d.Setup.Conda}} {
		for i, p := range list.pkgs {
			if strings.ContainsAny(p, " \t\n\"'`$\\;&|<>") || strings.HasPrefix(p, "-") {
				// Said at the list, as the package's position.
				at := st.Loc.Field("dask").Field("setup").Field(list.key)
				diags = append(diags, diag.Errorf(diag.BadDask, at.Index(i).At(at.Pos()),
					"%q is not one package", p).
					WithFix("give each package as its own entry, without options").
					WithDetail("The image installs $EXTRA_*_PACKAGES split on spaces, and reads a word that starts with - as "+
						"an option."))
			}
		}
	}
	return diags
}

// mpiUser says what the user the MPI step's pods run as cannot do: read
// root's SSH keys (the default sshAuthMountPath) as a non-root user, a
// warning, or under podSecurity restricted, an error; a kubeflow.org/v1
// MPIJob is refused under restricted.
func mpiUser(plat *spec.Platform, at diag.Loc, s *ir.Step, job *ir.MPIJob) diag.Diagnostics {
	var diags diag.Diagnostics
	if job.SSHAuthMountPath == "" {
		job.SSHAuthMountPath = defaultSSHAuthMountPath
		switch {
		case plat.PodSecurity == ir.PodSecurityRestricted && job.APIVersion != mpiV1:
			// Said at mpi:, which does not write sshAuthMountPath.
			diags = append(diags, diag.Errorf(diag.CannotLockDown, at.Field("sshAuthMountPath").At(at.Pos()),
				"podSecurity is restricted, so the workers run as a non-root user, whose SSH server cannot read keys under "+
					"/root/.ssh").
				WithFix("set sshAuthMountPath to that user's ~/.ssh and give the step its runAsUser (mpi-operator's images: "+
					"/home/mpiuser/.ssh, user 1000)").
				WithDetail("/root/.ssh, the default sshAuthMountPath, holds root's keys."))
		case runsAsNonRoot(s.SecurityContext) && job.APIVersion != mpiV1:
			// Said at mpi:, which does not write sshAuthMountPath.
			diags = append(diags, diag.Warnf(diag.SSHKeysUnreadable, at.Field("sshAuthMountPath").At(at.Pos()),
				"the workers run as %s, whose SSH server cannot read keys under /root/.ssh", nonRootUser(s.SecurityContext)).
				WithFix("set sshAuthMountPath to that user's ~/.ssh (mpi-operator's images use /home/mpiuser/.ssh)"))
		}
	}
	if plat.PodSecurity == ir.PodSecurityRestricted && job.APIVersion == mpiV1 {
		diags = append(diags, diag.Errorf(diag.CannotLockDown, plat.Loc.Field("mpi").Field("apiVersion"),
			"podSecurity is restricted, and a kubeflow.org/v1 MPIJob's launcher has an init container the compiler "+
				"cannot lock down").
			WithFix("use kubeflow.org/v2beta1 (mpi-operator)").
			WithDetail("The training operator gives the launcher the init container kubectl-delivery, which runs as root with "+
				"no securityContext (pkg/controller.v1/mpi/mpijob_controller.go)."))
	}
	return diags
}
