package distributed_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	tektonv1 "github.com/tektoncd/pipeline/pkg/apis/pipeline/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/backends/internal/distributed"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/internal/enginetest"
	"github.com/mlcube-compile/mlcube-compile/internal/manifestcheck"
)

// withRBAC is examples/resnet50-multinode for backend, with the RBAC its
// run needs.
func withRBAC(t *testing.T, backend string) enginetest.Emitted {
	t.Helper()
	return manifestcheck.BuildFor(t, backend, manifestcheck.Specs(enginetest.Example(t, "resnet50-multinode")),
		emit.Options{RBAC: true}).Must(t)
}

func TestEmitRBAC(t *testing.T) {
	for backend, verbs := range map[string]string{"argo": "create delete get list watch",
		"tekton": "create delete get list watch"} {
		out := withRBAC(t, backend)
		objs := out.Objects()
		// Argo's executor reads the account's token from a Secret.
		if want := map[string]int{"argo": 5, "tekton": 4}[backend]; len(objs) != want {
			t.Fatalf("%s: want ServiceAccount, Role, RoleBinding, (on Argo) the token's Secret, and the run: %d objects, got %d",
				backend, want, len(objs))
		}
		role, ok := objs[1].(*rbacv1.Role)
		if !ok {
			t.Fatalf("%s: the second object is a %T, want the Role", backend, objs[1])
		}
		found := false
		for _, r := range role.Rules {
			if slices.Contains(r.Resources, "mpijobs") && strings.Join(r.Verbs, " ") == verbs &&
				r.APIGroups[0] == "kubeflow.org" {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no rule grants %s on mpijobs: %+v", backend, verbs, role.Rules)
		}
		binding, ok := objs[2].(*rbacv1.RoleBinding)
		if !ok || len(binding.Subjects) != 1 || binding.Subjects[0].Name != "mlops-runner" {
			t.Errorf("%s: the binding should bind the platform's service account: %+v", backend, objs[2])
		}
		var account string
		switch run := out.Run.(type) {
		case *wfv1.Workflow:
			account = run.Spec.ServiceAccountName
		case *tektonv1.PipelineRun:
			account = run.Spec.TaskRunTemplate.ServiceAccountName
		}
		if account != "mlops-runner" {
			t.Errorf("%s: the run runs as %q, want the platform's service account", backend, account)
		}
	}
}

// With RBAC emitted, the run's account may create jobs (which embed any
// pod spec): the users' containers must not hold its token. On Argo no
// pod mounts it and the executor's containers get it from its Secret; on
// Tekton only the kubectl tasks' pods mount it (the step's and the
// finally task that cleans up).
func TestEmitRBACKeepsTheTokenFromUserContainers(t *testing.T) {
	out := withRBAC(t, "argo")
	secret, ok := out.Objects()[3].(*corev1.Secret)
	if !ok || secret.Name != "mlops-runner.service-account-token" || secret.Type != corev1.SecretTypeServiceAccountToken ||
		secret.Annotations[corev1.ServiceAccountNameKey] != "mlops-runner" {
		t.Errorf("argo: object 4 is not mlops-runner's token Secret: %+v", out.Objects()[3])
	}
	wf := out.Run.(*wfv1.Workflow)
	if a := wf.Spec.AutomountServiceAccountToken; a == nil || *a || wf.Spec.Executor == nil ||
		wf.Spec.Executor.ServiceAccountName != "mlops-runner" {
		t.Errorf("argo: automountServiceAccountToken %v, executor %+v; want false, and the executor under mlops-runner", a,
			wf.Spec.Executor)
	}
	pr := withRBAC(t, "tekton").Run.(*tektonv1.PipelineRun)
	if tpl := pr.Spec.TaskRunTemplate.PodTemplate; tpl == nil || tpl.AutomountServiceAccountToken == nil ||
		*tpl.AutomountServiceAccountToken {
		t.Errorf("tekton: the run's pod template %+v, want automountServiceAccountToken false", tpl)
	}
	mounts := map[string]bool{}
	for _, spec := range pr.Spec.TaskRunSpecs {
		if a := spec.PodTemplate.AutomountServiceAccountToken; a != nil {
			mounts[spec.PipelineTaskName] = *a
		}
	}
	if len(mounts) != 2 || !mounts["train"] || !mounts["cleanup"] {
		t.Errorf("tekton: tasks that mount the token: %v, want only the kubectl tasks train and cleanup", mounts)
	}
}

// A Dask step's rule is on JobSets, or on the operator's DaskJobs (and
// DaskAutoscalers, for adaptive workers).
func TestDaskRules(t *testing.T) {
	for form, want := range map[ir.DaskForm]string{
		ir.DaskJobSet:   "[{jobset.x-k8s.io [jobsets] [get]}]",
		ir.DaskOperator: "[{kubernetes.dask.org [daskjobs] [get]} {kubernetes.dask.org [daskautoscalers] [create]}]",
	} {
		p := &ir.Pipeline{Steps: []*ir.Step{{Kind: ir.Dask,
			Dask: &ir.DaskJob{Form: form, Autoscale: &ir.Autoscale{Minimum: 1, Maximum: 2}}}}}
		if got := fmt.Sprint(distributed.Rules(p, []string{"get"})); got != want {
			t.Errorf("%s: %s, want %s", form, got, want)
		}
	}
}
