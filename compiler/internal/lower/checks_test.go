package lower

import (
	"strings"
	"testing"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/spec"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// stepAt is a step written at steps[0] of the pipeline file.
func stepAt() *spec.Step {
	at := diag.At(diag.Pos{File: "pipeline.yaml", Line: 3, Col: 3})
	return &spec.Step{Name: "train", Loc: at.Field("steps").Index(0)}
}

// An MPI worker runs slotsPerWorker ranks, else one per GPU; a count of
// ranks other than the GPUs' is warned of. torchrun starts procsPerNode
// processes, else one per GPU, which must divide the GPUs.
func TestRanks(t *testing.T) {
	two, three := 2, 3
	for _, c := range []struct {
		slots      *int
		gpus, want int
		warned     bool
	}{
		{nil, 0, 1, false}, {nil, 1, 1, false}, {nil, 4, 4, false}, {&two, 0, 2, false}, {&two, 4, 2, true},
	} {
		st, s, job := stepAt(), &ir.Step{Resources: ir.Resources{GPU: c.gpus}}, &ir.MPIJob{SlotsPerWorker: 1}
		st.MPI = &spec.MPI{SlotsPerWorker: c.slots}
		diags := slots(st, s, job)
		if job.SlotsPerWorker != c.want || (diags != nil) != c.warned {
			t.Errorf("slots %v, %d GPUs: %d, %v; want %d, warned %v", c.slots, c.gpus, job.SlotsPerWorker, diags, c.want,
				c.warned)
		}
	}
	for _, c := range []struct {
		procs      *int
		gpus, want int
		refused    bool
	}{
		{nil, 0, 1, false}, {nil, 4, 4, false}, {&two, 4, 2, false}, {&three, 4, 3, true}, {&three, 0, 3, false},
	} {
		st, s, job := stepAt(), &ir.Step{Resources: ir.Resources{GPU: c.gpus}}, &ir.TrainJob{ProcsPerNode: 1}
		st.Torch = &spec.Torch{ProcsPerNode: c.procs}
		diags := procsPerNode(st, s, job)
		if job.ProcsPerNode != c.want || diags.HasErrors() != c.refused {
			t.Errorf("procs %v, %d GPUs: %d, %v; want %d, refused %v", c.procs, c.gpus, job.ProcsPerNode, diags, c.want,
				c.refused)
		}
	}
}

// Under podSecurity restricted a step runs as non-root, and one that
// says it runs as root is refused, at its own field or the platform's;
// runAsUser 0 with runAsNonRoot true is refused anywhere.
func TestRunsAsRoot(t *testing.T) {
	zero, yes, no := int64(0), true, false
	plat := &spec.Platform{Loc: diag.At(diag.Pos{File: "platform.yaml", Line: 1, Col: 1}),
		PodSecurity: ir.PodSecurityRestricted}
	st, s := stepAt(), &ir.Step{}
	if diags := restrict(st, plat, s); diags != nil || s.SecurityContext == nil || !*s.SecurityContext.RunAsNonRoot {
		t.Errorf("restricted: %v, %+v", diags, s.SecurityContext)
	}
	st.SecurityContext = &spec.SecurityContext{RunAsNonRoot: &no}
	s = &ir.Step{SecurityContext: &ir.SecurityContext{RunAsNonRoot: &no, RunAsUser: &zero}}
	if got := fields(restrict(st, plat, s)); got != "steps[0].securityContext.runAsNonRoot securityContext.runAsUser" {
		t.Errorf("root under restricted: said at %q", got)
	}
	plat.PodSecurity = ""
	if diags := restrict(st, plat, &ir.Step{}); diags != nil {
		t.Errorf("not restricted: %v", diags)
	}
	sc := &ir.SecurityContext{RunAsUser: &zero, RunAsNonRoot: &yes}
	if got := fields(checkRootContradiction(stepAt(), plat, sc)); got != "securityContext.runAsUser" {
		t.Errorf("root and non-root: said at %q", got)
	}
	st = stepAt()
	st.SecurityContext = &spec.SecurityContext{RunAsUser: &zero}
	if got := fields(checkRootContradiction(st, plat, sc)); got != "steps[0].securityContext.runAsUser" {
		t.Errorf("the step's root and non-root: said at %q", got)
	}
}

// With limitsEqualRequests a step's /dev/shm is added to its memory.
func TestChargeShm(t *testing.T) {
	s := &ir.Step{ShmSize: "1Gi", Resources: ir.Resources{Memory: "2Gi", LimitsEqualRequests: true}}
	if diags := chargeShm(stepAt(), s); len(diags) != 1 || s.Resources.Memory != "3Gi" {
		t.Errorf("memory %s, %v; want 3Gi and a warning", s.Resources.Memory, diags)
	}
	s = &ir.Step{ShmSize: "1Gi", Resources: ir.Resources{Memory: "2Gi"}}
	if diags := chargeShm(stepAt(), s); diags != nil || s.Resources.Memory != "2Gi" {
		t.Errorf("without limitsEqualRequests: memory %s, %v", s.Resources.Memory, diags)
	}
}

// Kueue admits no DaskJob and no kubeflow.org/v1 MPIJob; said at the
// step's queue when it names one, else at its dask: or mpi:. A Dask
// step's JobSet it admits.
func TestQueuedStep(t *testing.T) {
	plat := &spec.Platform{}
	st := stepAt()
	if diags := queuedStep(st, plat, "team"); diags != nil {
		t.Errorf("a container step: %v", diags)
	}
	st.MPI = &spec.MPI{}
	if diags := queuedStep(st, plat, "team"); diags != nil {
		t.Errorf("a v2beta1 MPIJob: %v", diags)
	}
	plat.MPI.APIVersion = mpiV1
	if got := fields(queuedStep(st, plat, "team")); got != "steps[0].mpi" {
		t.Errorf("a v1 MPIJob: said at %q", got)
	}
	st.MPI, st.Dask = nil, &spec.Dask{}
	queue := "mine"
	st.Queue = &queue
	if diags := queuedStep(st, plat, queue); diags != nil {
		t.Errorf("a Dask step's JobSet: %v", diags)
	}
	plat.Dask.Kind = "DaskJob"
	if d := queuedStep(st, plat, queue); len(d) != 1 || d[0].Field != "steps[0].queue" ||
		!strings.Contains(d[0].Message, `runs a DaskJob, which Kueue cannot admit, so it cannot run in its queue "mine"`) {
		t.Errorf("a DaskJob: %v", d)
	}
}

// A step that sets cpu or memory but no gpu takes its cube's GPUs, which
// is warned of; gpu: or a DRA request says it.
func TestGPUsFromCube(t *testing.T) {
	cpu := 2
	st := stepAt()
	st.Cube, st.Task = &spec.Cube{Name: "c"}, &spec.Task{Name: "train"}
	st.Resources.CPU = cpu
	d := gpusFromCube(st, 2)
	if len(d) != 1 || !strings.Contains(d[0].Message, "takes 2 GPUs from platform.accelerator_count") {
		t.Errorf("got %v", d)
	}
	if d = gpusFromCube(st, 0); d != nil {
		t.Errorf("no GPUs: %v", d)
	}
	st.Resources.DeviceClass = "gpu.example.com"
	if d = gpusFromCube(st, 2); d != nil {
		t.Errorf("a DRA request: %v", d)
	}
}
