package argo

import (
	"fmt"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	"github.com/argoproj/argo-workflows/v3/workflow/validate"
	apiv1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/backends/internal/kube"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// Options tune the Workflow; the zero value is what users get by default.
type Options struct {
	// ServiceAccountName, when set, overrides the platform's: the one
	// --emit-rbac makes.
	ServiceAccountName string
	// Kind is the kind of object to emit; empty means a Workflow.
	Kind Kind
}

// entrypointName is the DAG template's name unless a task template has it.
const entrypointName = "main"

// compile builds the Workflow, WorkflowTemplate or CronWorkflow for p and
// checks it with Argo's validator. It returns warnings about what the run
// does that the spec does not say. A rejection by the validator is a bug
// in mlcube-compile and is reported as one.
func compile(p *ir.Pipeline, opts Options) (any, diag.Diagnostics, error) {
	if err := checkText(p); err != nil {
		return nil, nil, err
	}
	if err := refuseObjects(p); err != nil {
		return nil, nil, err
	}
	if replacesJobs(p, opts.Kind) {
		p = withCronLabel(p)
	}
	spec, err := workflowSpec(p, opts)
	if err != nil {
		return nil, nil, err
	}
	var obj any
	switch opts.Kind {
	case KindWorkflow, "":
		obj, err = workflow(p, spec)
	case KindWorkflowTemplate:
		obj, err = workflowTemplate(p, spec)
	case KindCronWorkflow:
		obj, err = cronWorkflow(p, spec)
	default:
		err = fmt.Errorf("unknown kind %q", opts.Kind)
	}
	if err != nil {
		return nil, nil, err
	}
	return obj, append(warnings(p, serviceAccount(p, opts)), v4CRDWarnings(p, spec, opts.Kind)...), nil
}

// workflowSpec is what every kind runs: the DAG, its templates, the
// params and the volumes.
func workflowSpec(p *ir.Pipeline, opts Options) (wfv1.WorkflowSpec, error) {
	templates, tasks, err := buildTemplates(p)
	if err != nil {
		return wfv1.WorkflowSpec{}, err
	}
	if replacesJobs(p, opts.Kind) {
		templates, tasks = deleteReplacedJobs(p, templates, tasks)
	}
	entry := uniqueName(entrypointName, templates)
	onExit, handler := exitHandler(p, append(templates, wfv1.Template{Name: entry}))
	templates = append(templates, handler...)
	spec := wfv1.WorkflowSpec{
		Entrypoint:         entry,
		OnExit:             onExit,
		ServiceAccountName: serviceAccount(p, opts),
		Arguments:          arguments(p.Params),
		Templates:          append([]wfv1.Template{{Name: entry, DAG: &wfv1.DAGTemplate{Tasks: tasks}}}, templates...),
		ImagePullSecrets:   kube.ImagePullSecrets(p.ImagePullSecrets),
	}
	if p.TTLSecondsAfterFinished != nil {
		spec.TTLStrategy = &wfv1.TTLStrategy{SecondsAfterCompletion: p.TTLSecondsAfterFinished}
	}
	tokenForExecutorOnly(&spec, opts.ServiceAccountName)
	addVolumes(&spec, p.Volumes)
	objectStoreSpec(&spec, p, spec.ServiceAccountName)
	return spec, nil
}

// tokenForExecutorOnly keeps the token of the account --emit-rbac makes
// (sa), which may create jobs and ConfigMaps, out of the users'
// containers: no pod mounts its account's token, and Argo mounts the
// executor account's token into its own containers alone (the init and
// wait containers, and the main container of a resource template, which
// is argoexec): setupServiceAccount and newExecContainer in
// workflow/controller/workflowpod.go, v3.7.18 and v4.0.7. The pods keep
// the account, for its image pull secrets and workload identity. Argo
// reads that token from the Secret RBAC makes beside the account.
func tokenForExecutorOnly(spec *wfv1.WorkflowSpec, sa string) {
	if sa == "" {
		return
	}
	spec.AutomountServiceAccountToken = ptr.To(false)
	spec.Executor = &wfv1.ExecutorConfig{ServiceAccountName: sa}
}

// workflow is one run, named by the API server.
func workflow(p *ir.Pipeline, spec wfv1.WorkflowSpec) (*wfv1.Workflow, error) {
	wf := &wfv1.Workflow{
		TypeMeta:   metav1.TypeMeta{APIVersion: "argoproj.io/v1alpha1", Kind: "Workflow"},
		ObjectMeta: kube.RunMeta(p),
		Spec:       spec,
	}
	err := checkObject(wf, p.Spec, "Workflow", "Argo's limit on a Workflow", func() error {
		return validateDAG(wf.Spec, func(spec wfv1.WorkflowSpec) error {
			part := *wf
			part.Spec = spec
			return validate.ValidateWorkflow(nil, nil, &part, nil, validate.ValidateOpts{Lint: true})
		})
	})
	if err != nil {
		return nil, err
	}
	return wf, nil
}

// checkObject checks an object's size against Argo's limit, then runs
// Argo's validator for its kind. The size comes first: the validator is
// slow on huge DAGs. spec is the spec file, whose steps a refusal for
// size is about.
func checkObject(obj any, spec diag.Loc, kind, limit string, validateKind func() error) error {
	if err := emit.CheckSize(obj, spec.Field("steps"), "the "+kind, emit.ArgoWorkflowLimit, limit); err != nil {
		return err
	}
	if err := validateKind(); err != nil {
		return fmt.Errorf("the %s fails Argo's validator: %w", kind, err)
	}
	return nil
}

func serviceAccount(p *ir.Pipeline, opts Options) string {
	if opts.ServiceAccountName != "" {
		return opts.ServiceAccountName
	}
	return p.ServiceAccountName
}

// arguments turns pipeline params into workflow arguments, which
// `argo submit -p name=value` overrides.
func arguments(params []ir.Param) wfv1.Arguments {
	var args wfv1.Arguments
	for _, p := range params {
		wp := wfv1.Parameter{Name: p.Name}
		if p.Default != nil {
			wp.Value = wfv1.AnyStringPtr(*p.Default)
		}
		if p.Description != "" {
			wp.Description = wfv1.AnyStringPtr(p.Description)
		}
		for _, e := range p.Enum {
			wp.Enum = append(wp.Enum, wfv1.AnyString(e))
		}
		args.Parameters = append(args.Parameters, wp)
	}
	return args
}

// addVolumes mounts existing claims, asks Argo to create the others, and
// gives each pod a volume of its own of a per-pod volume: a volume of the
// Workflow's spec is one of every pod's.
func addVolumes(spec *wfv1.WorkflowSpec, vols []ir.Volume) {
	for _, v := range vols {
		if v.PerPod {
			spec.Volumes = append(spec.Volumes, kube.PerPodVolume(v))
			continue
		}
		if v.Create == nil {
			spec.Volumes = append(spec.Volumes, apiv1.Volume{
				Name: v.Name,
				VolumeSource: apiv1.VolumeSource{
					PersistentVolumeClaim: &apiv1.PersistentVolumeClaimVolumeSource{ClaimName: v.ClaimName},
				},
			})
			continue
		}
		claim := apiv1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: v.Name}, Spec: kube.ClaimSpec(v.Create)}
		spec.VolumeClaimTemplates = append(spec.VolumeClaimTemplates, claim)
		// Argo's default, written out so that the manifest says it.
		spec.VolumeClaimGC = &wfv1.VolumeClaimGC{Strategy: wfv1.VolumeClaimGCOnSuccess}
	}
}

// uniqueName returns want, or want with a suffix when a template has it.
func uniqueName(want string, templates []wfv1.Template) string {
	taken := map[string]bool{}
	for _, t := range templates {
		taken[t.Name] = true
	}
	name := want
	for i := 2; taken[name]; i++ {
		name = fmt.Sprintf("%s-%d", want, i)
	}
	return name
}
