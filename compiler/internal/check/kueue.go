package check

import (
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/spec"
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
// this checks.

// kueue checks the platform's queue and priorities, and each step's
// under the queue it runs in: Kueue admits a Job, a v2beta1 MPIJob or a
// pod, and nothing else the steps become.
func (c *checker) kueue() {
	c.labelValue(c.plat.Queue, c.plat.Loc.Field("queue"), queueLabel)
	c.labelValue(c.plat.WorkloadPriorityClass, c.plat.Loc.Field("workloadPriorityClass"), priorityLabel)
	queued := false
	for _, st := range c.spec.Steps {
		if !hasNameChars(st.Name) {
			continue
		}
		if st.Queue != nil {
			c.labelValue(*st.Queue, st.Loc.Field("queue"), queueLabel)
		}
		c.labelValue(st.WorkloadPriorityClass, st.Loc.Field("workloadPriorityClass"), priorityLabel)
		queue := c.plat.QueueOf(st)
		queued = queued || queue != ""
		if queue == "" {
			if st.WorkloadPriorityClass != "" {
				c.errorf(st.Loc.Field("workloadPriorityClass"), "Kueue reads a WorkloadPriorityClass only from a queued workload, and this step runs outside any queue; give the step a queue, or drop workloadPriorityClass")
			}
			continue
		}
		c.queuedStep(st, queue)
	}
	// A platform with a queue may serve pipelines whose steps all leave it.
	if !queued && c.plat.Queue == "" && c.plat.WorkloadPriorityClass != "" && len(c.spec.Steps) > 0 {
		c.errorf(c.plat.Loc.Field("workloadPriorityClass"), "Kueue reads a WorkloadPriorityClass only from a queued workload, and no step runs in a queue; set queue in the platform file, or drop workloadPriorityClass")
	}
}

// queuedStep refuses a step under a queue that Kueue cannot admit: a
// DaskJob, for which Kueue v0.19.2 has no integration (the integrations
// are the folders of pkg/controller/jobs), and a kubeflow.org/v1 MPIJob,
// since Kueue's MPIJob integration (pkg/controller/jobs/mpijob) watches
// mpi-operator's kubeflow.org/v2beta1 only.
func (c *checker) queuedStep(st *spec.Step, queue string) {
	var field, why string
	switch {
	case st.Dask != nil:
		field, why = "dask", "runs a DaskJob, which Kueue cannot admit (it has no DaskJob integration)"
	case st.MPI != nil && c.plat.MPI.APIVersion == mpiV1:
		field, why = "mpi", "runs a kubeflow.org/v1 MPIJob (the training operator's), which Kueue cannot admit (its MPIJob integration is for mpi-operator's kubeflow.org/v2beta1)"
	default:
		return
	}
	at, from := st.Loc.Field(field), "the platform's queue"
	if st.Queue != nil {
		at, from = st.Loc.Field("queue"), "its queue"
	}
	fix := "use mpi.apiVersion kubeflow.org/v2beta1 in the platform file (mpi-operator v0.8.0 or later)"
	if field == "dask" {
		fix = "run the work as a container or MPI step"
	}
	c.errorf(at, "step %q %s, so it cannot run in %s %q; run it outside any queue with queue: \"\" on the step, or %s", st.Name, why, from, queue, fix)
}

// The labels of a queued workload, as Kueue names them.
const (
	queueLabel    = "kueue.x-k8s.io/queue-name"
	priorityLabel = "kueue.x-k8s.io/priority-class"
)

// labelValue refuses a name longer than a label value may be.
func (c *checker) labelValue(v string, at diag.Loc, label string) {
	if len(v) > validation.LabelValueMaxLength {
		c.errorf(at, "%q is %d characters: it becomes the value of the label %s, which is at most %d characters", v, len(v), label, validation.LabelValueMaxLength)
	}
}
