package lower

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/spec"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

const (
	// defaultTrainingRuntime is the ClusterTrainingRuntime Kubeflow
	// Trainer installs for torchrun (manifests/base/runtimes/
	// torch_distributed.yaml, github.com/kubeflow/trainer/v2 v2.3.0).
	defaultTrainingRuntime = "torch-distributed"
	clusterTrainingRuntime = "ClusterTrainingRuntime"
)

// torchEnv are the variables Trainer's torch plugin sets on every node
// for torchrun, and whose setting in a TrainJob its webhook refuses
// (TorchRunReservedEnvNames, pkg/constants/constants.go, v2.3.0).
var torchEnv = []string{"PET_MASTER_ADDR", "PET_MASTER_PORT", "PET_NNODES", "PET_NODE_RANK", "PET_NPROC_PER_NODE"}

// pythonProgram is a Python interpreter's name, which torchrun stands in
// for: it starts the script itself in every process.
var pythonProgram = regexp.MustCompile(`^python([0-9]+(\.[0-9]+)?)?$`)

// lowerTorch makes s a torch step: each node of a TrainJob runs torchrun
// with the task's entrypoint, which starts procsPerNode processes there;
// Trainer's torch plugin tells torchrun the nodes, their rank and the
// first node's address through the PET_ variables.
func (sl *stepLowering) lowerTorch(s *ir.Step) {
	st := sl.st
	t, at := st.Torch, st.Loc.Field("torch")
	job := &ir.TrainJob{
		GenerateName: sl.p.Name + "-" + s.Name + "-",
		Runtime:      t.Runtime, RuntimeKind: t.RuntimeKind,
		Nodes: t.Nodes, ProcsPerNode: 1,
	}
	if job.Runtime == "" {
		job.Runtime = defaultTrainingRuntime
	}
	if job.RuntimeKind == "" {
		job.RuntimeKind = clusterTrainingRuntime
	}
	sl.diags = append(sl.diags, procsPerNode(st, s, job)...)
	for _, e := range s.Env {
		if slices.Contains(torchEnv, e.Name) {
			sl.diags = append(sl.diags, diag.Errorf(diag.BadTorch, envAt(st, e.Name),
				"%s is set by Kubeflow Trainer on every node for torchrun, and its webhook refuses a TrainJob that sets it",
				e.Name).
				WithFix("drop it").
				WithDetail("Trainer sets %s.", strings.Join(torchEnv, ", ")))
		}
	}
	entry := s.Command
	if len(entry) == 0 && t.Entrypoint != "" {
		var diags diag.Diagnostics
		entry, diags = words(t.Entrypoint, at.Field("entrypoint"))
		sl.diags = append(sl.diags, diags...)
	}
	if len(entry) == 0 {
		sl.diags = append(sl.diags, diag.Errorf(diag.BadTorch, at,
			"torchrun needs a program to start in every process, and task %q of cube %q has no entrypoint",
			st.Task.Name, st.Cube.Name).
			WithFix("give one with torch.entrypoint, such as train.py (the script the image's ENTRYPOINT runs)"))
	}
	s.Command = torchrun(entry)
	job.ManagedBy = managedBy(sl.plat, s)
	sl.diags = append(sl.diags, notCarried(st, sl.plat, s)...)
	s.Kind, s.Train = ir.Torch, job
}

// torchrun is the command every node runs: torchrun starting a Python
// script or module itself, as torchrun train.py, or any other program
// with --no-python, which torchrun then runs as it is.
func torchrun(entry []string) []string {
	if len(entry) > 1 && pythonProgram.MatchString(path.Base(entry[0])) &&
		(entry[1] == "-m" || !strings.HasPrefix(entry[1], "-")) {
		return append([]string{"torchrun"}, entry[1:]...)
	}
	return append([]string{"torchrun", "--no-python"}, entry...)
}

// procsPerNode is how many processes torchrun starts on each node:
// procsPerNode, else one per GPU of the node, else one. Each process
// drives GPUs/procs GPUs, so procs must divide the GPUs.
func procsPerNode(st *spec.Step, s *ir.Step, job *ir.TrainJob) diag.Diagnostics {
	var diags diag.Diagnostics
	gpus := s.Resources.GPU
	switch p := st.Torch.ProcsPerNode; {
	case p == nil && gpus > 0:
		job.ProcsPerNode = gpus
	case p != nil:
		job.ProcsPerNode = *p
		if gpus > 0 && gpus%*p != 0 {
			diags = append(diags, diag.Errorf(diag.BadTorch, st.Loc.Field("torch").Field("procsPerNode"),
				"%d processes per node do not divide the node's %d GPUs", *p, gpus).
				WithFix(fmt.Sprintf("give a divisor of %d (one process per GPU: leave procsPerNode out)", gpus)).
				WithDetail("Some processes would share a GPU that others leave idle."))
		}
	}
	return diags
}

// envAt is where the step's env var name is written: the step's env:,
// else where the step is.
func envAt(st *spec.Step, name string) diag.Loc {
	for _, e := range st.Env {
		if e.Name == name {
			return e.Loc
		}
	}
	return st.Loc
}

// notCarried warns of the step's settings that a TrainJob cannot give
// its node pods: Trainer's runtime patches have no priorityClassName or
// imagePullPolicy (PodSpecPatch and ContainerPatch,
// pkg/apis/trainer/v1alpha1/trainjob_types.go, v2.3.0), and the trainer
// has none of its own. Each is said where it is written.
func notCarried(st *spec.Step, plat *spec.Platform, s *ir.Step) diag.Diagnostics {
	var diags diag.Diagnostics
	if s.PriorityClassName != "" {
		at := plat.Loc.Field("priorityClassName")
		if st.PriorityClassName != "" {
			at = st.Loc.Field("priorityClassName")
		}
		diags = append(diags, diag.Warnf(diag.TorchNotCarried, at,
			"step %q runs as a TrainJob, whose node pods cannot carry priorityClassName %q", st.Name, s.PriorityClassName).
			WithFix("for a queued step, Kueue's workloadPriorityClass orders admission").
			WithDetail("Trainer's runtime patches have no such field (PodSpecPatch, Trainer v2.3.0), so the node pods run "+
				"at the runtime's priority."))
	}
	if s.ImagePullPolicy != "" {
		diags = append(diags, diag.Warnf(diag.TorchNotCarried, plat.Loc.Field("imagePullPolicy"),
			"step %q runs as a TrainJob, whose node containers cannot carry imagePullPolicy %s", st.Name, s.ImagePullPolicy).
			WithDetail("Trainer's runtime patches have no such field (ContainerPatch, Trainer v2.3.0), so the kubelet "+
				"uses its default: Always for :latest, else IfNotPresent."))
	}
	return diags
}
