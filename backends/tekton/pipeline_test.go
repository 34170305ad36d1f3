package tekton

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/tektoncd/pipeline/pkg/apis/pipeline/pod"
	v1 "github.com/tektoncd/pipeline/pkg/apis/pipeline/v1"
	"knative.dev/pkg/apis"

	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/backends/tekton/tkntest"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/internal/enginetest"
)

// started is p's PipelineRun kind, its Pipeline, and the run that
// tkn pipeline start NAME -n NAMESPACE --use-param-defaults makes of it
// with the flags its warnings give, as a user reads them. Without
// --use-param-defaults, tkn asks for the value of every param. A
// pipeline Tekton does not run (an Argo-only object store) is skipped.
func started(t *testing.T, p *ir.Pipeline) (*v1.PipelineRun, *v1.Pipeline, *v1.PipelineRun) {
	t.Helper()
	if shape := (Engine{}).Accepts(p, ""); len(shape) > 0 {
		t.Skipf("not for Tekton: %v", shape)
	}
	pr, err := compile(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Engine{}.Emit(p, emit.Options{Kind: KindPipeline})
	if err == nil {
		err = res.Err()
	}
	if err != nil {
		t.Fatal(err)
	}
	pl := res.Run.(*v1.Pipeline)
	var lines []string
	for _, w := range res.Warnings {
		lines = append(lines, w.String())
	}
	start, err := tkntest.FromWarnings(lines)
	if err != nil {
		t.Fatal(err)
	}
	run, err := start.PipelineRun(pl, "-n", pl.Namespace, "--use-param-defaults")
	if err != nil {
		t.Fatalf("tkn pipeline start %s %s: %v\nwarnings:\n%s", pl.Name, strings.Join(start.Args, " "), err,
			strings.Join(lines, "\n"))
	}
	return pr, pl, run
}

// The run that tkn makes with the warnings' flags is the one the engine
// checked with Tekton's validation.
func TestPipelineStartsAsWarned(t *testing.T) {
	for name, p := range enginetest.Pipelines(t) {
		t.Run(name, func(t *testing.T) {
			pr, pl, got := started(t, p)
			_, want, _, err := asPipeline(p, pr)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("tkn pipeline start %s with the warnings' flags (-checked +made):\n%s", pl.Name, diff)
			}
			if err := validate(got); err != nil {
				t.Error(err)
			}
		})
	}
}

// taskRun is what Tekton gives the TaskRun of one pipeline task.
type taskRun struct {
	// Timeouts are its timeout under default-timeout-minutes of 60 and of
	// 5; 0 is none.
	Timeouts       []time.Duration
	ServiceAccount string
	PodTemplate    *pod.PodTemplate
	// Task is the pipeline task, but for its timeout.
	Task v1.PipelineTask
}

// runFacts are what Tekton runs of pr: its own timeout, its workspaces,
// and each task's TaskRun.
type runFacts struct {
	Timeout    time.Duration
	Workspaces []v1.WorkspaceBinding
	Params     v1.ParamSpecs
	TaskRuns   map[string]taskRun
}

func facts(pr *v1.PipelineRun) runFacts {
	ctx := apis.WithinCreate(context.Background())
	defaulted := pr.DeepCopy()
	defaulted.SetDefaults(ctx)
	out := runFacts{Timeout: defaulted.PipelineTimeout(ctx), Workspaces: pr.Spec.Workspaces,
		Params: pr.Spec.PipelineSpec.Params, TaskRuns: map[string]taskRun{}}
	for _, task := range pr.Spec.PipelineSpec.Tasks {
		spec := pr.DeepCopy().GetTaskRunSpec(task.Name)
		tr := taskRun{ServiceAccount: spec.ServiceAccountName, PodTemplate: spec.PodTemplate, Task: *task.DeepCopy()}
		for _, d := range []time.Duration{time.Hour, 5 * time.Minute} {
			tr.Timeouts = append(tr.Timeouts, taskRunTimeout(pr, task, d))
		}
		tr.Task.Timeout = nil
		out.TaskRuns[task.Name] = tr
	}
	return out
}

// A Pipeline started with the warnings' flags runs as the PipelineRun
// kind does: the same run timeout (none), each TaskRun's timeout, account
// and pod, the same workspaces and tasks; the run carries the labels
// Tekton copies from the Pipeline. Without --pipeline-timeout 0 the run
// would stop after an hour; without the tasks' timeout: 0s, every
// untimed step would.
func TestPipelineRunsAsThePipelineRun(t *testing.T) {
	for name, p := range enginetest.Pipelines(t) {
		t.Run(name, func(t *testing.T) {
			pr, pl, run := started(t, p)
			// What the reconciler runs once it has fetched the Pipeline
			// (storePipelineSpecAndMergeMeta).
			run.Spec.PipelineRef, run.Spec.PipelineSpec = nil, pl.Spec.DeepCopy()
			if diff := cmp.Diff(facts(pr), facts(run), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("what Tekton runs (-PipelineRun kind +started Pipeline):\n%s", diff)
			}
			if diff := cmp.Diff(pr.Labels, pl.Labels); diff != "" {
				t.Errorf("labels (-PipelineRun +Pipeline):\n%s", diff)
			}
		})
	}
}

// A step without a timeout runs without one in the Pipeline too.
func TestPipelineUntimedTasks(t *testing.T) {
	p := &ir.Pipeline{Name: "train", Steps: []*ir.Step{
		{Name: "prepare", Image: "busybox:1.36"},
		{Name: "train", Image: "busybox:1.36", Timeout: 90 * time.Minute, Dependencies: []string{"prepare"}},
	}}
	_, pl, run := started(t, p)
	run.Spec.PipelineRef, run.Spec.PipelineSpec = nil, pl.Spec.DeepCopy()
	want := map[string]time.Duration{"prepare": 0, "train": 90 * time.Minute}
	for _, task := range run.Spec.PipelineSpec.Tasks {
		if got := taskRunTimeout(run, task, time.Hour); got != want[task.Name] {
			t.Errorf("task %s: its TaskRun times out after %v, want %v (0 is none)", task.Name, got, want[task.Name])
		}
	}
	if got := run.PipelineTimeout(context.Background()); got != 0 {
		t.Errorf("the run times out after %v, want none", got)
	}
}
