package lower

import (
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/spec"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// Kueue reads a workload's LocalQueue and WorkloadPriorityClass from the
// labels kueue.x-k8s.io/queue-name and kueue.x-k8s.io/priority-class
// (sigs.k8s.io/kueue v0.19.2, pkg/controller/constants/constants.go),
// and refuses a queue name that is not a DNS-1123 subdomain
// (pkg/controller/jobframework/validation.go, ValidateQueueName, as
// LocalQueueName in apis/kueue/v1beta2/localqueue_types.go); the schema
// checks that. A label value is at most 63 characters
// (k8s.io/apimachinery/pkg/util/validation, IsValidLabelValue), which
// lowering checks.
const (
	queueLabel    = "kueue.x-k8s.io/queue-name"
	priorityLabel = "kueue.x-k8s.io/priority-class"
)

// queue sets the step's Kueue queue and priorities: Kueue admits a Job,
// a v2beta1 MPIJob or a pod, and nothing else the steps become, and a
// WorkloadPriorityClass only on a queued workload.
func (sl *stepLowering) queue(s *ir.Step) {
	st := sl.st
	if st.Queue != nil {
		sl.diags = append(sl.diags, labelLength(*st.Queue, st.Loc.Field("queue"), queueLabel)...)
	}
	sl.diags = append(sl.diags,
		labelLength(st.WorkloadPriorityClass, st.Loc.Field("workloadPriorityClass"), priorityLabel)...)
	pr := sl.plat.PrioritiesOf(st)
	s.PriorityClassName = pr.PriorityClassName
	queue := sl.plat.QueueOf(st)
	sl.use.queued = sl.use.queued || queue != ""
	switch {
	case queue == "" && st.WorkloadPriorityClass != "":
		sl.diags = append(sl.diags, diag.Errorf(diag.BadQueue, st.Loc.Field("workloadPriorityClass"),
			"Kueue reads a WorkloadPriorityClass only from a queued workload, and this step runs outside any queue").
			WithFix("give the step a queue, or drop workloadPriorityClass"))
	case queue != "":
		sl.diags = append(sl.diags, queuedStep(st, sl.plat, queue)...)
	}
	if st.Dask != nil && daskForm(sl.plat) == ir.DaskOperator {
		return
	}
	s.Queue = queue
	if s.Queue != "" {
		s.WorkloadPriorityClass = pr.WorkloadPriorityClass
	}
}

// multiKueueController is the managedBy of a job Kueue's MultiKueue
// dispatches to a worker cluster (kueue.MultiKueueControllerName,
// apis/kueue/v1beta2, sigs.k8s.io/kueue v0.19.2); the job's own
// controller then leaves it alone on this cluster.
const multiKueueController = "kueue.x-k8s.io/multikueue"

// managedBy is the controller of a queued distributed step's job: Kueue's
// MultiKueue when the platform asks for it, else the job's own.
func managedBy(plat *spec.Platform, s *ir.Step) string {
	if plat.MultiKueue && s.Queue != "" {
		return multiKueueController
	}
	return ""
}

// kueue checks the platform's queue and priorities, once the steps are
// lowered (some of which, queued says, run in a queue; none when there
// are no steps): a platform with a queue may serve pipelines whose steps
// all leave it, but a WorkloadPriorityClass with no queued step is
// refused.
func kueue(plat *spec.Platform, queued, steps bool) diag.Diagnostics {
	diags := labelLength(plat.Queue, plat.Loc.Field("queue"), queueLabel)
	diags = append(diags,
		labelLength(plat.WorkloadPriorityClass, plat.Loc.Field("workloadPriorityClass"), priorityLabel)...)
	if plat.MultiKueue && !queued && steps {
		diags = append(diags, diag.Errorf(diag.BadQueue, plat.Loc.Field("multiKueue"),
			"MultiKueue dispatches queued workloads only, and no step runs in a queue").
			WithFix("set queue in the platform file, or drop multiKueue"))
	}
	if !queued && plat.Queue == "" && plat.WorkloadPriorityClass != "" && steps {
		diags = append(diags, diag.Errorf(diag.BadQueue, plat.Loc.Field("workloadPriorityClass"),
			"Kueue reads a WorkloadPriorityClass only from a queued workload, and no step runs in a queue").
			WithFix("set queue in the platform file, or drop workloadPriorityClass"))
	}
	return diags
}

// queuedStep refuses a step under a queue that Kueue cannot admit: a
// DaskJob, for which Kueue v0.19.2 has no integration (the integrations
// are the folders of pkg/controller/jobs), and a kubeflow.org/v1 MPIJob,
// since Kueue's MPIJob integration (pkg/controller/jobs/mpijob) watches
// mpi-operator's kubeflow.org/v2beta1 only.
func queuedStep(st *spec.Step, plat *spec.Platform, queue string) diag.Diagnostics {
	var diags diag.Diagnostics
	var field, what, why string
	switch {
	case st.Dask != nil && daskForm(plat) == ir.DaskOperator:
		field, what, why = "dask", "a DaskJob", "Kueue has no DaskJob integration."
	case st.MPI != nil && plat.MPI.APIVersion == mpiV1:
		field, what = "mpi", "a kubeflow.org/v1 MPIJob"
		why = "A kubeflow.org/v1 MPIJob is the training operator's, and Kueue's MPIJob integration is for " +
			"mpi-operator's kubeflow.org/v2beta1."
	default:
		return nil
	}
	at, from := st.Loc.Field(field), "the platform's queue"
	if st.Queue != nil {
		at, from = st.Loc.Field("queue"), "its queue"
	}
	fix := "use mpi.apiVersion kubeflow.org/v2beta1 in the platform file (mpi-operator v0.8.0 or later)"
	if field == "dask" {
		fix = "drop dask.kind: DaskJob from the platform file: Kueue admits a Dask step's JobSet whole"
	}
	diags = append(diags, diag.Errorf(diag.BadQueue, at,
		"step %q runs %s, which Kueue cannot admit, so it cannot run in %s %q", st.Name, what, from, queue).
		WithFix("run it outside any queue with queue: \"\" on the step, or "+fix).
		WithDetail("%s", why))
	return diags
}

// labelLength refuses a name written at at, the value of label, longer
// than a label value may be.
func labelLength(v string, at diag.Loc, label string) diag.Diagnostics {
	if len(v) > validation.LabelValueMaxLength {
		return diag.Diagnostics{diag.Errorf(diag.BadQueue, at, "%q is %d characters, more than a label value's %d",
			v, len(v), validation.LabelValueMaxLength).
			WithDetail("It becomes the value of the label %s, which is at most %d characters.",
				label, validation.LabelValueMaxLength)}
	}
	return nil
}
