package lower

import (
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/spec"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// chargeShm counts a step's /dev/shm in its memory when its memory is
// also its limit (limitsEqualRequests). /dev/shm is an emptyDir of medium
// Memory, a tmpfs whose pages are charged to the memory cgroup of the
// container that writes them, as docker's --shm-size is: a workload that
// uses the memory it asked for and fills /dev/shm goes over its limit and
// is OOM-killed. So the pod asks for, and is limited to, the step's
// memory plus the shm size, with a warning that gives the figures (what
// Kueue and a ResourceQuota count changes).
func chargeShm(st *spec.Step, s *ir.Step) diag.Diagnostics {
	var diags diag.Diagnostics
	r := &s.Resources
	if s.ShmSize == "" || !r.LimitsEqualRequests || r.Memory == "" {
		return nil
	}
	mem, err1 := resource.ParseQuantity(r.Memory)
	shm, err2 := resource.ParseQuantity(s.ShmSize)
	if err1 != nil || err2 != nil || shm.IsZero() {
		return nil // a bad quantity is refused where it is read
	}
	total := mem.DeepCopy()
	total.Add(shm)
	diags = append(diags, diag.Warnf(diag.ShmInMemoryLimit, st.Loc.Field("resources").Field("memory"),
		"the step asks for and is limited to %s + %s of /dev/shm (--shm-size) = %s of memory", mem.String(),
		shm.String(), total.String()).
		WithDetail("/dev/shm is memory charged to the container, and with the platform's limitsEqualRequests its memory "+
			"is also its limit."))
	r.Memory = total.String()
	return diags
}

// sizeDaskWorkers gives each Dask worker the cpu and memory that dask.worker
// leaves out from the step's resources. A dask-worker without --nthreads
// and --memory-limit, in a pod without limits, sizes itself from the
// node (dask.system's CPU_COUNT and MEMORY_LIMIT read the cgroup, which
// then has none): a thread per node CPU and the node's memory, so that
// Dask neither spills nor pauses before the kubelet evicts it. What
// neither gives is warned about.
func sizeDaskWorkers(st *spec.Step, s *ir.Step, job *ir.DaskJob) diag.Diagnostics {
	var diags diag.Diagnostics
	w := &job.Worker
	if w.CPU == "" {
		w.CPU = s.Resources.CPU
	}
	if w.Memory == "" {
		w.Memory = s.Resources.Memory
	}
	missing := ""
	switch {
	case w.CPU == "" && w.Memory == "":
		missing = "cpu and memory"
	case w.CPU == "":
		missing = "cpu"
	case w.Memory == "":
		missing = "memory"
	default:
		return nil
	}
	at := st.Loc.Field("dask").Field("worker")
	diags = append(diags, diag.Warnf(diag.DaskWorkersUnsized, at.At(at.Pos()),
		"the Dask workers get no %s from dask.worker or the step's resources, so each sizes itself from the node", missing).
		WithFix("give dask.worker: {cpu, memory}").
		WithDetail("Each worker sizes itself from the node, not its pod (a thread per node CPU, the node's memory as its "+
			"limit), and the kubelet may evict it before Dask spills."))
	return diags
}
