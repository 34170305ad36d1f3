package tekton

import (
	"context"
	"testing"
	"time"

	"github.com/tektoncd/pipeline/pkg/apis/config"
	v1 "github.com/tektoncd/pipeline/pkg/apis/pipeline/v1"
	"knative.dev/pkg/apis"

	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
)

// taskRunTimeout is the timeout the TaskRun of pipeline task t gets, as
// Tekton decides it at run time: the task's own timeout; else the
// PipelineRun's tasks timeout when it is 0 or longer than the cluster's
// default (pipelineRunTimeout in pkg/reconciler/pipelinerun/pipelinerun.go);
// else nil, which TaskRun defaulting (pkg/apis/pipeline/v1/taskrun_defaults.go)
// turns into default-timeout-minutes. pr is defaulted first, as the
// webhook does, and TasksTimeout is Tekton's own method.
func taskRunTimeout(pr *v1.PipelineRun, t v1.PipelineTask, clusterDefault time.Duration) time.Duration {
	pr = pr.DeepCopy()
	pr.SetDefaults(apis.WithinCreate(context.Background()))
	if t.Timeout != nil {
		return t.Timeout.Duration
	}
	if tasks := pr.TasksTimeout(); tasks != nil &&
		(tasks.Duration == config.NoTimeoutDuration || tasks.Duration > clusterDefault) {
		return tasks.Duration
	}
	return clusterDefault
}

func TestUntimedStepsRunWithoutLimit(t *testing.T) {
	p := &ir.Pipeline{Name: "train", Steps: []*ir.Step{
		{Name: "prepare", Image: "busybox:1.36"},
		{Name: "train", Image: "busybox:1.36", Timeout: 90 * time.Minute, Dependencies: []string{"prepare"}},
	}}
	pr, err := compile(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]time.Duration{"prepare": 0, "train": 90 * time.Minute}
	for _, task := range pr.Spec.PipelineSpec.Tasks {
		// Tekton's default-timeout-minutes is 60; a cluster may shorten it.
		for _, clusterDefault := range []time.Duration{time.Hour, 5 * time.Minute} {
			if got := taskRunTimeout(pr, task, clusterDefault); got != want[task.Name] {
				t.Errorf("task %s with default-timeout-minutes %v: its TaskRun times out after %v, want %v (0 is none)", task.Name,
					clusterDefault, got, want[task.Name])
			}
		}
	}
	if got := pr.Spec.Timeouts.Pipeline; got == nil || got.Duration != 0 {
		t.Errorf("timeouts.pipeline = %v, want 0s: the run has no limit", got)
	}
}
