package argo

import (
	"fmt"
	"regexp"
	"slices"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	apiv1 "k8s.io/api/core/v1"
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
	all := map[string]wfv1.DAGTask{}
	for _, t := range tasks {
		all[t.Name] = t
	}
	if err := checkRefs(spec.Templates[entry].Name, tasks, all); err != nil {
		return err
	}
	for start := 0; start < len(tasks); start += dagWindow {
		window := windowSpec(spec, entry, byName, all, tasks[start:min(start+dagWindow, len(tasks))])
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
// byName indexes spec's templates, all the DAG's tasks. A task that reads
// another's outputs depends on it directly in the window, and one outside
// the window is there as a stub (outputStubs).
func windowSpec(spec wfv1.WorkflowSpec, entry int, byName map[string]wfv1.Template, all map[string]wfv1.DAGTask,
	tasks []wfv1.DAGTask) wfv1.WorkflowSpec {
	inWindow := map[string]bool{}
	for _, t := range tasks {
		inWindow[t.Name] = true
	}
	stubTasks, stubs := outputStubs(byName, all, tasks, inWindow)
	dag := spec.Templates[entry]
	// A copy of the DAG without its tasks: copying them all for each
	// window would cost the square of the tasks.
	rest := *dag.DAG
	rest.Tasks = nil
	dag.DAG = rest.DeepCopy()
	dag.DAG.Tasks = append(make([]wfv1.DAGTask, 0, len(stubTasks)+len(tasks)), stubTasks...)
	for i, t := range tasks {
		t.Dependencies = nil
		for _, d := range tasks[i].Dependencies {
			if inWindow[d] {
				t.Dependencies = append(t.Dependencies, d)
			}
		}
		for _, r := range taskRefs(t) {
			if !slices.Contains(t.Dependencies, r) {
				t.Dependencies = append(t.Dependencies, r)
			}
		}
		dag.DAG.Tasks = append(dag.DAG.Tasks, t)
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
	out.Templates = append(out.Templates, stubs...)
	return out
}

// taskRef finds the tasks whose outputs a DAG task's argument reads.
var taskRef = regexp.MustCompile(`\{\{tasks\.([^.}]+)\.`)

// taskRefs names the tasks whose outputs t's arguments read, in order,
// each once.
func taskRefs(t wfv1.DAGTask) []string {
	var out []string
	add := func(s string) {
		for _, m := range taskRef.FindAllStringSubmatch(s, -1) {
			if !slices.Contains(out, m[1]) {
				out = append(out, m[1])
			}
		}
	}
	for _, p := range t.Arguments.Parameters {
		if p.Value != nil {
			add(p.Value.String())
		}
	}
	for _, a := range t.Arguments.Artifacts {
		add(a.From)
	}
	return out
}

// outputStubs stands in, in a window, for each task outside it (not in
// inWindow) whose outputs a task of the window reads: a task of that name
// that waits for nothing, running a template of nothing but the outputs
// of the task's own. Argo's validator finds those outputs among what the
// reading task waits for, as it would in the whole DAG (checkRefs checks
// that they are).
func outputStubs(byName map[string]wfv1.Template, all map[string]wfv1.DAGTask, tasks []wfv1.DAGTask,
	inWindow map[string]bool) ([]wfv1.DAGTask, []wfv1.Template) {
	var stubTasks []wfv1.DAGTask
	var stubs []wfv1.Template
	named := map[string]bool{}
	for _, t := range tasks {
		for _, r := range taskRefs(t) {
			if inWindow[r] || named[r] {
				continue
			}
			named[r] = true
			name := all[r].Template + "-outputs"
			for i := 2; byName[name].Name != "" ||
				slices.ContainsFunc(stubs, func(s wfv1.Template) bool { return s.Name == name }); i++ {
				name = fmt.Sprintf("%s-outputs-%d", all[r].Template, i)
			}
			stubs = append(stubs, wfv1.Template{
				Name:      name,
				Container: &apiv1.Container{Name: containerName, Image: "stub"},
				Outputs:   byName[all[r].Template].Outputs,
			})
			stubTasks = append(stubTasks, wfv1.DAGTask{Name: r, Template: name})
		}
	}
	return stubTasks, stubs
}

// checkRefs checks what no window sees whole: each task of the DAG
// template dag (whose tasks are all, by name) reads the outputs of tasks
// it waits for, directly or not.
func checkRefs(dag string, tasks []wfv1.DAGTask, all map[string]wfv1.DAGTask) error {
	for _, t := range tasks {
		refs := taskRefs(t)
		if len(refs) == 0 {
			continue
		}
		seen := map[string]bool{}
		queue := slices.Clone(t.Dependencies)
		for len(queue) > 0 && len(refs) > 0 {
			d := queue[0]
			queue = queue[1:]
			if seen[d] {
				continue
			}
			seen[d] = true
			refs = slices.DeleteFunc(refs, func(r string) bool { return r == d })
			queue = append(queue, all[d].Dependencies...)
		}
		if len(refs) > 0 {
			return fmt.Errorf("templates.%s.tasks.%s reads the outputs of %q, which it does not wait for", dag, t.Name, refs[0])
		}
	}
	return nil
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
