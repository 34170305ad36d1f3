package tekton

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/tektoncd/pipeline/pkg/apis/pipeline/pod"
	v1 "github.com/tektoncd/pipeline/pkg/apis/pipeline/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"knative.dev/pkg/apis"

	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/backends/internal/kube"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
)

// Options tune the PipelineRun; the zero value is what users get.
type Options struct {
	// ServiceAccountName, when set, overrides the platform's: the one
	// --emit-rbac makes.
	ServiceAccountName string
}

// compile builds the PipelineRun for p and checks it with Tekton's own
// defaulting and validation. A rejection by the validator is a bug in
// mlcube-compile.
func compile(p *ir.Pipeline, opts Options) (*v1.PipelineRun, error) {
	p, err := gpusAsLimits(p)
	if err != nil {
		return nil, err
	}
	if refused := append(refusals(p), workspaceRefusals(p)...); len(refused) > 0 {
		return nil, refused
	}
	if err := objectRefusals(p); err != nil {
		return nil, err
	}
	sa := p.ServiceAccountName
	if opts.ServiceAccountName != "" {
		sa = opts.ServiceAccountName
	}
	pr := &v1.PipelineRun{
		TypeMeta:   metav1.TypeMeta{APIVersion: "tekton.dev/v1", Kind: "PipelineRun"},
		ObjectMeta: kube.RunMeta(p),
		Spec: v1.PipelineRunSpec{
			PipelineSpec:    &v1.PipelineSpec{Params: paramSpecs(p.Params)},
			Timeouts:        noTimeouts(),
			TaskRunTemplate: v1.PipelineTaskRunTemplate{ServiceAccountName: sa, PodTemplate: runPodTemplate(p)},
		},
	}
	for _, v := range p.Volumes {
		if v.PerPod {
			continue
		}
		pr.Spec.PipelineSpec.Workspaces = append(pr.Spec.PipelineSpec.Workspaces,
			v1.PipelineWorkspaceDeclaration{Name: v.Name})
		pr.Spec.Workspaces = append(pr.Spec.Workspaces, workspaceBinding(v))
	}
	if err := addTasks(pr, p); err != nil {
		return nil, err
	}
	var kubectlTasks []string
	for _, s := range p.Steps {
		if s.Kind != ir.Container {
			kubectlTasks = append(kubectlTasks, s.Name)
		}
	}
	if t, ok := cleanupTask(p); ok {
		pr.Spec.PipelineSpec.Finally = append(pr.Spec.PipelineSpec.Finally, t)
		kubectlTasks = append(kubectlTasks, t.Name)
	}
	tokenForKubectlOnly(pr, opts.ServiceAccountName, kubectlTasks)
	if err := emit.CheckSize(pr, p.Spec.Field("steps"), "the PipelineRun", emit.ObjectLimit,
		"etcd's limit on an object"); err != nil {
		return nil, err
	}
	if err := validate(pr); err != nil {
		return nil, err
	}
	return pr, nil
}

// addTasks adds to pr a task for each step of p, in order, with the task
// that creates a step's files before it, and the TaskRun spec of each
// that needs one.
func addTasks(pr *v1.PipelineRun, p *ir.Pipeline) error {
	placed := coLocated(p)
	for _, s := range p.Steps {
		if s.Kind != ir.Container {
			t, err := distributedTask(p, s)
			if err != nil {
				return err
			}
			pr.Spec.PipelineSpec.Tasks = append(pr.Spec.PipelineSpec.Tasks, t)
			continue
		}
		t, err := pipelineTask(p, s)
		if err != nil {
			return err
		}
		if files, ok := filesTask(p, s); ok {
			pr.Spec.PipelineSpec.Tasks = append(pr.Spec.PipelineSpec.Tasks, files)
			t.RunAfter = append(slices.Clone(t.RunAfter), files.Name)
		}
		if s.Key != nil {
			key, err := keyTask(p, s)
			if err != nil {
				return err
			}
			pr.Spec.PipelineSpec.Tasks = append(pr.Spec.PipelineSpec.Tasks, key)
			t.RunAfter = slices.Clone(t.RunAfter)
			skipOnHit(&t, s)
		}
		pr.Spec.PipelineSpec.Tasks = append(pr.Spec.PipelineSpec.Tasks, t)
		if spec := taskRunSpec(p, s, slices.Contains(placed, s)); spec != nil {
			pr.Spec.TaskRunSpecs = append(pr.Spec.TaskRunSpecs, *spec)
		}
	}
	if p.Provenance != nil {
		pr.Spec.PipelineSpec.Tasks = append(pr.Spec.PipelineSpec.Tasks, provenanceTask(p))
	}
	return nil
}

// validate runs what Tekton's webhooks run when the PipelineRun is created:
// defaulting, then validation, on a copy named as the API server would
// name it from generateName. The printed object stays without defaults,
// so that the cluster's own defaults apply.
func validate(pr *v1.PipelineRun) error {
	ctx := apis.WithinCreate(context.Background())
	created := pr.DeepCopy()
	created.Name = pr.GenerateName + "abcde"
	created.SetDefaults(ctx)
	// Validate returns a *FieldError; a nil one must not become a non-nil error.
	if ferr := created.Validate(ctx); ferr != nil {
		return fmt.Errorf("the PipelineRun fails Tekton's validation: %w", ferr)
	}
	return nil
}

// paramRef is how a task refers to a parameter.
func paramRef(param string) string { return "$(params." + param + ")" }

// paramSpecs declares the pipeline's parameters. An enum is checked by the
// compiler; Tekton's own enum is an alpha feature, off by default.
func paramSpecs(params []ir.Param) v1.ParamSpecs {
	var out v1.ParamSpecs
	for _, p := range params {
		ps := v1.ParamSpec{Name: p.Name, Type: v1.ParamTypeString, Description: p.Description}
		if p.Default != nil {
			ps.Default = v1.NewStructuredValues(*p.Default)
		}
		out = append(out, ps)
	}
	return out
}

// workspaceBinding binds a volume to an existing claim or to a claim
// Tekton creates for the run.
func workspaceBinding(v ir.Volume) v1.WorkspaceBinding {
	b := v1.WorkspaceBinding{Name: v.Name}
	if v.Create == nil {
		b.PersistentVolumeClaim = &corev1.PersistentVolumeClaimVolumeSource{ClaimName: v.ClaimName}
		return b
	}
	b.VolumeClaimTemplate = &corev1.PersistentVolumeClaim{Spec: kube.ClaimSpec(v.Create)}
	return b
}

// runPodTemplate is the pod settings every TaskRun shares, and which
// Tekton's affinity assistant copies to place itself: pull secrets, and
// the node selector and tolerations of runScheduling, so that the
// assistant lands on a node every step it places can run on.
func runPodTemplate(p *ir.Pipeline) *pod.PodTemplate {
	t := &pod.PodTemplate{ImagePullSecrets: kube.ImagePullSecrets(p.ImagePullSecrets)}
	t.NodeSelector, t.Tolerations = runScheduling(p)
	if len(t.ImagePullSecrets) == 0 && len(t.NodeSelector) == 0 && len(t.Tolerations) == 0 {
		return nil
	}
	return t
}

// tokenForKubectlOnly keeps the token of the account --emit-rbac makes
// (sa), which may create jobs, out of the users' containers: no TaskRun's
// pod mounts it but those of the kubectl tasks, which create, wait for
// and clean up the jobs. Tekton lays each task's pod template over the run's
// (MergePodTemplateWithDefault, pkg/apis/pipeline/pod/template.go), so
// the kubectl tasks' true wins over the run's false. Every pod keeps the
// account, for its image pull secrets and workload identity.
func tokenForKubectlOnly(pr *v1.PipelineRun, sa string, kubectlTasks []string) {
	if sa == "" {
		return
	}
	if pr.Spec.TaskRunTemplate.PodTemplate == nil {
		pr.Spec.TaskRunTemplate.PodTemplate = &pod.PodTemplate{}
	}
	pr.Spec.TaskRunTemplate.PodTemplate.AutomountServiceAccountToken = ptr.To(false)
	for _, name := range kubectlTasks {
		pr.Spec.TaskRunSpecs = append(pr.Spec.TaskRunSpecs, v1.PipelineTaskRunSpec{
			PipelineTaskName: name, PodTemplate: &pod.PodTemplate{AutomountServiceAccountToken: ptr.To(true)},
		})
	}
}

// containerSteps are the steps that run in a pod of their own task; a
// distributed step's task only runs kubectl.
func containerSteps(p *ir.Pipeline) []*ir.Step {
	var out []*ir.Step
	for _, s := range p.Steps {
		if s.Kind == ir.Container {
			out = append(out, s)
		}
	}
	return out
}

// taskRunSpec carries one step's scheduling, security and priority
// class; nil when it has none. A step the affinity assistant places
// takes its scheduling from the run's template, which holds it and what
// the assistant's node needs of the step: Tekton lays a task's template
// over the run's field by field (MergePodTemplateWithDefault,
// pkg/apis/pipeline/pod/template.go), so the step's own tolerations
// would drop those of the assistant's node.
func taskRunSpec(p *ir.Pipeline, s *ir.Step, placedByRun bool) *v1.PipelineTaskRunSpec {
	sel, tols := s.NodeSelector, kube.Tolerations(s.Tolerations)
	if placedByRun {
		sel, tols = nil, nil
	}
	if len(sel) == 0 && len(tols) == 0 && s.SecurityContext == nil && s.PriorityClassName == "" {
		return nil
	}
	spec := &v1.PipelineTaskRunSpec{
		PipelineTaskName: s.Name,
		PodTemplate: &pod.PodTemplate{
			NodeSelector:    sel,
			Tolerations:     tols,
			SecurityContext: kube.PodSecurityContext(p, s.SecurityContext),
		},
	}
	if s.PriorityClassName != "" {
		spec.PodTemplate.PriorityClassName = &s.PriorityClassName
	}
	return spec
}

// noTimeouts lets the run and every task without a timeout of its own
// run for as long as they need, as on Argo. Tekton's reconciler
// (pkg/reconciler/pipelinerun/pipelinerun.go, pipelineRunTimeout) gives a
// TaskRun whose pipeline task has no timeout the PipelineRun's
// timeouts.tasks when that is 0 (no timeout); with timeouts.tasks unset
// it leaves the TaskRun's timeout nil, and TaskRun defaulting
// (pkg/apis/pipeline/v1/taskrun_defaults.go) then sets
// default-timeout-minutes, one hour unless the cluster changed it: a
// training step would be killed after an hour. Validation
// (pipelinerun_validation.go, validatePipelineTimeout) allows tasks: 0s
// only when pipeline is 0s too.
func noTimeouts() *v1.TimeoutFields {
	return &v1.TimeoutFields{Pipeline: &metav1.Duration{Duration: 0}, Tasks: &metav1.Duration{Duration: 0}}
}

// duration is a Tekton timeout; nil for none.
func duration(d time.Duration) *metav1.Duration {
	if d <= 0 {
		return nil
	}
	return &metav1.Duration{Duration: d}
}
