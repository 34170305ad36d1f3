package argo

import (
	"fmt"
	"strings"
	"testing"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	"github.com/argoproj/argo-workflows/v3/workflow/validate"
	apiv1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// chainSpec is a Workflow spec whose DAG is a chain of n tasks, each
// running the template "stage", and a template no task runs.
func chainSpec(n int) wfv1.WorkflowSpec {
	dag := &wfv1.DAGTemplate{}
	for i := 0; i < n; i++ {
		task := wfv1.DAGTask{Name: fmt.Sprintf("t%d", i), Template: "stage"}
		if i > 0 {
			task.Dependencies = []string{fmt.Sprintf("t%d", i-1)}
		}
		dag.Tasks = append(dag.Tasks, task)
	}
	stage := wfv1.Template{Name: "stage", Container: &apiv1.Container{Name: "main", Image: "example/chain:1"}}
	unused := wfv1.Template{Name: "unused", Container: &apiv1.Container{Name: "main", Image: "example/chain:1"}}
	return wfv1.WorkflowSpec{Entrypoint: "main", Templates: []wfv1.Template{{Name: "main", DAG: dag}, stage, unused}}
}

// validateWorkflowSpec runs Argo's validator on a Workflow of spec.
func validateWorkflowSpec(spec wfv1.WorkflowSpec) error {
	wf := &wfv1.Workflow{ObjectMeta: metav1.ObjectMeta{GenerateName: "chain-"}, Spec: spec}
	return validate.ValidateWorkflow(nil, nil, wf, nil, validate.ValidateOpts{Lint: true})
}

func TestValidateDAGInWindows(t *testing.T) {
	n := 3*dagWindow + 5
	t.Run("each task once, dependencies kept inside the window", func(t *testing.T) {
		seen := map[string]int{}
		err := validateDAG(chainSpec(n), func(spec wfv1.WorkflowSpec) error {
			if len(spec.Templates) != 2 {
				t.Errorf("window with %d templates, want main and stage", len(spec.Templates))
			}
			tasks := spec.Templates[0].DAG.Tasks
			inWindow := map[string]bool{}
			for _, task := range tasks {
				seen[task.Name]++
				inWindow[task.Name] = true
				for _, d := range task.Dependencies {
					if !inWindow[d] {
						t.Errorf("%s depends on %s, outside its window", task.Name, d)
					}
				}
			}
			return validateWorkflowSpec(spec)
		})
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < n; i++ {
			if seen[fmt.Sprintf("t%d", i)] != 1 {
				t.Errorf("t%d validated %d times", i, seen[fmt.Sprintf("t%d", i)])
			}
		}
	})
	for _, tc := range []struct {
		name  string
		spoil func(tasks []wfv1.DAGTask)
		want  string
	}{
		{"a template that does not exist, in the last window",
			func(tasks []wfv1.DAGTask) { tasks[len(tasks)-1].Template = "missing" }, "missing"},
		{"a dependency on a later task", func(tasks []wfv1.DAGTask) { tasks[3].Dependencies = []string{"t100"} },
			`depends on "t100", which is not a task before it`},
		{"a task name used twice, in two windows", func(tasks []wfv1.DAGTask) { tasks[dagWindow+1].Name = "t0" },
			"tasks.t0 is defined twice"},
		{"a bad task name, in the last window",
			func(tasks []wfv1.DAGTask) { tasks[len(tasks)-1].Name = "Not_A_Name" }, "Not_A_Name"},
		{"outputs of a task it does not wait for", func(tasks []wfv1.DAGTask) {
			tasks[dagWindow+3].Arguments.Parameters = []wfv1.Parameter{{Name: "x",
				Value: wfv1.AnyStringPtr("{{tasks.t50.outputs.parameters.x}}")}}
		}, `tasks.t35 reads the outputs of "t50", which it does not wait for`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := chainSpec(n)
			tc.spoil(spec.Templates[0].DAG.Tasks)
			err := validateDAG(spec, validateWorkflowSpec)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error with %q", err, tc.want)
			}
		})
	}
}

// TestWindowCostsItsTasks counts the allocations of one window: they
// depend on the window's tasks, not on how many tasks the DAG has, so
// that validating a DAG a window at a time stays linear in its tasks.
func TestWindowCostsItsTasks(t *testing.T) {
	allocs := func(n int) float64 {
		spec := chainSpec(n)
		byName := map[string]wfv1.Template{}
		for _, tmpl := range spec.Templates {
			byName[tmpl.Name] = tmpl
		}
		tasks := spec.Templates[0].DAG.Tasks
		all := map[string]wfv1.DAGTask{}
		for _, task := range tasks {
			all[task.Name] = task
		}
		return testing.AllocsPerRun(10, func() { windowSpec(spec, 0, byName, all, tasks[n-dagWindow:]) })
	}
	small, large := allocs(2*dagWindow), allocs(100*dagWindow)
	if large != small {
		t.Errorf("a window of %d tasks makes %v allocations in a DAG of %d tasks and %v in one of %d", dagWindow, large,
			100*dagWindow, small, 2*dagWindow)
	}
}
