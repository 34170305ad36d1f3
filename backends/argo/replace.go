package argo

import (
	"maps"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"

	"github.com/mlcube-compile/mlcube-compile/backends/internal/distributed"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
)

// A CronWorkflow whose concurrency policy is Replace terminates the run
// still going when the next one starts (util.TerminateWorkflow, shutdown
// Terminate, from the cron controller's enforceRuntimePolicy and
// terminateOutstandingWorkflows in
// workflow/cron/operator.go), and a terminated run skips its exit handler
// (ShutdownStrategy.ShouldExecute, pkg/apis/workflow/v1alpha1/
// workflow_types.go): the replaced run's MPIJobs and DaskJobs would keep
// their GPUs and keep writing to the claim. Their owner, the replaced
// Workflow, is not deleted either (the cron keeps it in its history). So
// every object of such a run carries cronLabel, and each run first
// deletes the jobs of the cron's other runs, by label.

// cronLabel names the CronWorkflow whose run made an object.
const cronLabel = "mlcube-compile/cron-workflow"

// replacesJobs says whether a run of p's kind may terminate another run
// of the same CronWorkflow that created jobs.
func replacesJobs(p *ir.Pipeline, kind Kind) bool {
	return kind == KindCronWorkflow && p.Schedule != nil && p.Schedule.ConcurrencyPolicy == "Replace" &&
		distributed.Kinds(p) != ""
}

// withCronLabel is p with cronLabel, which goes on every object and pod.
func withCronLabel(p *ir.Pipeline) *ir.Pipeline {
	q := *p
	q.Labels = maps.Clone(p.Labels)
	if q.Labels == nil {
		q.Labels = map[string]string{}
	}
	q.Labels[cronLabel] = p.Name
	return &q
}

// deleteReplacedJobs adds the task that deletes the jobs of the cron's
// other runs, and waits until they are gone, before any step starts: the
// replaced run's jobs hold the GPUs and the claim this run needs.
func deleteReplacedJobs(p *ir.Pipeline, templates []wfv1.Template,
	tasks []wfv1.DAGTask) ([]wfv1.Template, []wfv1.DAGTask) {
	selector := cronLabel + "=" + p.Name + "," + distributed.RunLabel + "!=" + workflowName
	jobs := deleteJobs(uniqueName("delete-replaced-jobs", templates), wfv1.Metadata{Labels: p.Labels},
		distributed.Kinds(p), selector, "--wait=true")
	return append(templates, jobs), runFirst(tasks, "delete-replaced-jobs", jobs.Name)
}
