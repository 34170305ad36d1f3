package check

import (
	"strings"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/spec"
)

// mpiV1 is the training operator's MPIJob, which has no SSH and no MPICH.
const mpiV1 = "kubeflow.org/v1"

// mpi checks an MPI step's settings: what kubeflow.org/v1 MPIJobs lack,
// the program mpirun starts, and the launcher's resources and placement.
func (c *checker) mpi(st *spec.Step) {
	m, at := st.MPI, st.Loc.Field("mpi")
	if c.plat.MPI.APIVersion == mpiV1 && m.SSHAuthMountPath != "" {
		c.errorf(at.Field("sshAuthMountPath"), "kubeflow.org/v1 MPIJobs (the training operator's) start ranks through kubectl exec, not SSH, and have no sshAuthMountPath; drop it, or use mpi-operator's kubeflow.org/v2beta1")
	}
	if c.plat.MPI.APIVersion == mpiV1 && m.Implementation == "MPICH" {
		c.errorf(at.Field("implementation"), "kubeflow.org/v1 MPIJobs (the training operator's) take OpenMPI or Intel; MPICH needs mpi-operator's kubeflow.org/v2beta1, the default when the platform's mpi.apiVersion is unset")
	}
	// The task's entrypoint, else mpi.entrypoint.
	entry, _ := spec.SplitWords(st.Task.Entrypoint)
	if len(entry) == 0 && m.Entrypoint != "" {
		words, err := spec.SplitWords(m.Entrypoint)
		if err != nil {
			c.errorf(at.Field("entrypoint"), "%v", err)
		}
		entry = words
	}
	if len(entry) == 0 {
		c.errorf(at, "mpirun needs a program to start on every slot, and task %q of cube %q has no entrypoint; give one with mpi.entrypoint (the command the image's ENTRYPOINT runs)", st.Task.Name, st.Cube.Name)
	}
	if m.Launcher != nil {
		c.resources(*m.Launcher, at.Field("launcher"))
	}
	c.placement(st, false)
}

// daskStep checks a step that runs a function on a Dask cluster: its
// workers' resources and placement, setup packages, output path, env
// (which may not refer to params), resources, placement and retries.
func (c *checker) daskStep(st *spec.Step) {
	d, at := st.Dask, st.Loc.Field("dask")
	workerGPU := false
	if d.Worker != nil {
		c.resources(*d.Worker, at.Field("worker"))
		workerGPU = d.Worker.GPU != nil && *d.Worker.GPU > 0
	}
	c.placement(st, workerGPU)
	c.daskPackages(st, d)
	if d.Output.Bucket == "" && !spec.InWorkspace(d.Output.Path) {
		c.errorf(at.Field("output").Field("path"), "%q: give a file path inside the workspace, such as results/benchmark.csv, or a bucket", d.Output.Path)
	}
	c.noParams = "a DaskJob"
	c.env(st, nil)
	c.noParams = ""
	c.resources(st.Resources, st.Loc)
	c.placement(st, false)
	c.retryAndTimeout(st)
}

// daskPackages refuses package names that the image's start script
// would split or read as options.
func (c *checker) daskPackages(st *spec.Step, d *spec.Dask) {
	for _, list := range []struct {
		key  string
		pkgs []string
	}{{"pipPackages", d.Setup.Pip}, {"aptPackages", d.Setup.Apt}, {"condaPackages", d.Setup.Conda}} {
		for i, p := range list.pkgs {
			if strings.ContainsAny(p, " \t\n\"'`$\\;&|<>") || strings.HasPrefix(p, "-") {
				// Said at the list, as the package's position.
				at := st.Loc.Field("dask").Field("setup").Field(list.key)
				c.errorf(at.Index(i).At(at.Pos()), "%q is not one package: the image installs $EXTRA_*_PACKAGES split on spaces, so give each package as its own entry, without options", p)
			}
		}
	}
}
