package argo

import (
	"fmt"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
)

// dagWindow is the most DAG tasks one call of Argo's validator sees.
// The validator takes time that grows with the square of a DAG's tasks:
// for each task it copies the scope that every task before it added, and
// walks all of the task's ancestors. A larger DAG is validated a window
// of tasks at a time; validateDAG says how.
const dagWindow = 32

// validateDAG runs validate, Argo's validator for the kind of object
// that runs spec, on spec itself when its DAG has at most dagWindow
// tasks. A larger DAG is validated in windows of consecutive tasks, in
// the DAG's order, which puts every task after the tasks it waits for:
// each window is spec with the DAG holding those tasks alone, each with
// its dependencies inside the window, and the templates they run. What
// no window sees, that every dependency names a task before it (so that
// every name resolves and there is no cycle) and that no two tasks or
// templates share a name, is checked here, over the whole spec.
func validateDAG(spec wfv1.WorkflowSpec, validate func(wfv1.WorkflowSpec) error) error {
	entry := -1
	for i, t := range spec.Templates {
		if t.Name == spec.Entrypoint && t.DAG != nil {
			entry = i
		}
	}
	if entry < 0 || len(spec.Templates[entry].DAG.Tasks) <= dagWindow || usesDepends(spec.Templates[entry]) {
		return validate(spec)
	}
	if err := checkNames(spec, entry); err != nil {
		return err
	}
	byName := map[string]wfv1.Template{}
	for _, t := range spec.Templates {
		byName[t.Name] = t
	}
	tasks := spec.Templates[entry].DAG.Tasks
	for start := 0; start < len(tasks); start += dagWindow {
		window := windowSpec(spec, entry, byName, tasks[start:min(start+dagWindow, len(tasks))])
		if err := validate(window); err != nil {
			return err
		}
	}
	return nil
}

// usesDepends reports whether a DAG writes its dependencies as Depends
// expressions, which a window cannot cut; the DAGs we emit never do.
func usesDepends(t wfv1.Template) bool {
	for _, task := range t.DAG.Tasks {
		if task.Depends != "" {
			return true
		}
	}
	return false
}

// checkNames checks what the windows cannot see: template and task names
// are unique, and each task's dependencies are tasks before it.
func checkNames(spec wfv1.WorkflowSpec, entry int) error {
	templates := map[string]bool{}
	for _, t := range spec.Templates {
		if templates[t.Name] {
			return fmt.Errorf("templates.%s is defined twice", t.Name)
		}
		templates[t.Name] = true
	}
	before := map[string]bool{}
	dag := spec.Templates[entry]
	for _, task := range dag.DAG.Tasks {
		if before[task.Name] {
			return fmt.Errorf("templates.%s.tasks.%s is defined twice", dag.Name, task.Name)
		}
		for _, d := range task.Dependencies {
			if !before[d] {
				return fmt.Errorf("templates.%s.tasks.%s depends on %q, which is not a task before it", dag.Name, task.Name, d)
			}
		}
		before[task.Name] = true
	}
	return nil
}

// windowSpec is spec with the DAG of its entry template holding tasks
// alone, each depending on the tasks in the window it depends on, and with
// the templates those tasks run, directly or through other templates;
// byName indexes spec's templates.
func windowSpec(spec wfv1.WorkflowSpec, entry int, byName map[string]wfv1.Template, tasks []wfv1.DAGTask) wfv1.WorkflowSpec {
	inWindow := map[string]bool{}
	for _, t := range tasks {
		inWindow[t.Name] = true
	}
	dag := spec.Templates[entry]
	// A copy of the DAG without its tasks: copying them all for each
	// window would cost the square of the tasks.
	rest := *dag.DAG
	rest.Tasks = nil
	dag.DAG = rest.DeepCopy()
	dag.DAG.Tasks = make([]wfv1.DAGTask, len(tasks))
	for i, t := range tasks {
		t.Dependencies = nil
		for _, d := range tasks[i].Dependencies {
			if inWindow[d] {
				t.Dependencies = append(t.Dependencies, d)
			}
		}
		dag.DAG.Tasks[i] = t
	}
	used := map[string]bool{dag.Name: true}
	var visit func(name string)
	visit = func(name string) {
		if used[name] {
			return
		}
		used[name] = true
		for _, ref := range templateRefs(byName[name]) {
			visit(ref)
		}
	}
	for _, t := range tasks {
		visit(t.Template)
	}
	// The exit handler belongs to every window: the Workflow names it.
	if spec.OnExit != "" {
		visit(spec.OnExit)
	}
	out := spec
	out.Templates = nil
	for i, t := range spec.Templates {
		switch {
		case i == entry:
			out.Templates = append(out.Templates, dag)
		case used[t.Name]:
			out.Templates = append(out.Templates, t)
		}
	}
	return out
}

// templateRefs names the templates a template runs.
func templateRefs(t wfv1.Template) []string {
	var out []string
	if t.DAG != nil {
		for _, task := range t.DAG.Tasks {
			out = append(out, task.Template)
		}
	}
	for _, parallel := range t.Steps {
		for _, step := range parallel.Steps {
			out = append(out, step.Template)
		}
	}
	return out
}
