package argo

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"

	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/backends/internal/kube"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
)

// configsTemplate creates the pipeline's ConfigMap as the run's first
// task, so that "argo submit wf.yaml", which ignores every document but
// the Workflow, has all the run needs. The ConfigMap is named after its
// content, so a run never reads another's configs; apply, not create,
// since an earlier run with the same configs may have made it. Each
// Workflow that applies it becomes one of its owners, so the ConfigMap
// goes when the last of them is deleted: the manifest names the run as an
// owner that is not the controller (Argo's setOwnerReference makes each
// run the controller, and the API server allows one), and a server-side
// apply under a field manager of the run's own keeps the owner references
// other runs applied (a client-side apply's three-way merge would drop
// them, and its last-applied annotation would cap the data at 256 KiB).
// nil when the pipeline has no configs.
func configsTemplate(p *ir.Pipeline, taken []wfv1.Template) (*wfv1.Template, error) {
	cm := kube.ConfigMap(p)
	if cm == nil {
		return nil, nil
	}
	return applyTemplate(p, uniqueName("configs", taken), cm)
}

// applyTemplate is a template named name that applies obj, an object
// the run needs before its steps, owned by the run as configsTemplate
// says.
func applyTemplate(p *ir.Pipeline, name string, obj metav1.Object) (*wfv1.Template, error) {
	obj.SetOwnerReferences([]metav1.OwnerReference{{
		APIVersion: wfv1.SchemeGroupVersion.String(), Kind: "Workflow", Name: workflowName, UID: "{{workflow.uid}}",
	}})
	doc, err := emit.YAML(obj)
	if err != nil {
		return nil, err
	}
	return &wfv1.Template{
		Name:     name,
		Metadata: wfv1.Metadata{Labels: p.Labels},
		Resource: &wfv1.ResourceTemplate{
			Action: "apply", Manifest: doc,
			Flags: []string{"--server-side", "--field-manager=mlcube-compile-" + workflowName},
		},
	}, nil
}

// afterConfigs adds the task that creates the ConfigMap, named apart from
// the steps, and makes every task that waits for no other wait for it.
func afterConfigs(tasks []wfv1.DAGTask, configs *wfv1.Template) []wfv1.DAGTask {
	if configs == nil {
		return tasks
	}
	return runFirst(tasks, "configs", configs.Name)
}

// runFirst adds a task of template, named base unless a task has that
// name, that every task that waits for no other waits for.
func runFirst(tasks []wfv1.DAGTask, base, template string) []wfv1.DAGTask {
	names := make([]wfv1.Template, len(tasks))
	for i, t := range tasks {
		names[i].Name = t.Name
	}
	name := uniqueName(base, names)
	for i := range tasks {
		if len(tasks[i].Dependencies) == 0 {
			tasks[i].Dependencies = []string{name}
		}
	}
	return append([]wfv1.DAGTask{{Name: name, Template: template}}, tasks...)
}
