package argo_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/internal/enginetest"
	"github.com/mlcube-compile/mlcube-compile/internal/manifestcheck"
)

// With artifactGC, the run's artifacts go as the platform says, but its
// final results are kept; the pod that deletes them runs as the run's
// account, which --emit-rbac lets do it.
func TestArtifactGCKeepsFinalResults(t *testing.T) {
	dir := enginetest.Example(t, "mixed-storage")
	opts := manifestcheck.Specs(dir)
	opts.Namespace = "ml"
	out := build(t, opts, emit.Options{RBAC: true})
	wf := workflow(t, out)
	gc := wf.Spec.ArtifactGC
	if gc == nil || gc.Strategy != wfv1.ArtifactGCOnWorkflowDeletion ||
		gc.ServiceAccountName != wf.Spec.ServiceAccountName || wf.Spec.ServiceAccountName == "" {
		t.Fatalf("artifactGC %+v, want OnWorkflowDeletion as %q", gc, wf.Spec.ServiceAccountName)
	}
	final := map[string]bool{"evaluate/metrics": true}
	for _, task := range wf.Spec.Templates[0].DAG.Tasks {
		for _, a := range wf.GetTemplateByName(task.Template).Outputs.Artifacts {
			kept := a.ArtifactGC != nil && a.ArtifactGC.Strategy == wfv1.ArtifactGCNever
			if kept != final[task.Name+"/"+a.Name] {
				t.Errorf("%s/%s: kept %v, want %v", task.Name, a.Name, kept, final[task.Name+"/"+a.Name])
			}
		}
	}
	var role *rbacv1.Role
	for _, o := range out.RBAC {
		if r, ok := o.(*rbacv1.Role); ok {
			role = r
		}
	}
	if role == nil || !slices.ContainsFunc(role.Rules, func(r rbacv1.PolicyRule) bool {
		return slices.Contains(r.Resources, "workflowartifactgctasks") && slices.Contains(r.Verbs, "watch")
	}) {
		t.Errorf("the run's Role does not let the artifact GC pod work: %+v", role)
	}
	// Without artifactGC, nothing is collected.
	if wf := objectWorkflow(t, "bucket-pipeline"); wf.Spec.ArtifactGC != nil {
		t.Errorf("bucket-pipeline: artifactGC %+v, want none", wf.Spec.ArtifactGC)
	}
}

// Argo's artifact GC pod runs as the namespace's default account when the
// run names none (getArtifactGCPodInfo, workflow/controller/
// artifact_gc.go, v3.7.18 and v4.0.7), which cannot read the run's
// WorkflowArtifactGCTasks; with forceFinalizerRemoval the Workflow goes
// and its data stays. The compile says so, at objectStore.artifactGC,
// unless --emit-rbac makes the run an account or the platform names one.
func TestArtifactGCDefaultAccountWarns(t *testing.T) {
	opts := manifestcheck.Specs(enginetest.Example(t, "mixed-storage"))
	// The example names an account set up for runs: nothing is said.
	if stderr := build(t, opts, emit.Options{}).Must(t).Stderr(); strings.Contains(stderr, "MLC609") {
		t.Errorf("with the platform's account:\n%s", stderr)
	}
	data, err := os.ReadFile(opts.Platform)
	if err != nil {
		t.Fatal(err)
	}
	platform := strings.Replace(string(data), "serviceAccountName: mlcube-runner\n", "", 1)
	if !strings.HasPrefix(strings.SplitN(platform, "objectStore:", 2)[1], "\n  artifactRepositoryRef") {
		t.Fatalf("mixed-storage's platform changed:\n%s", platform)
	}
	dir := enginetest.WriteFiles(t, map[string]string{"platform.yaml": platform})
	opts.Platform = filepath.Join(dir, "platform.yaml")
	stderr := build(t, opts, emit.Options{}).Must(t).Stderr()
	if !strings.Contains(stderr, "platform.yaml:8:3: warning: objectStore.artifactGC: argo: the pod that deletes the "+
		"run's artifacts") || !strings.Contains(stderr, "[MLC609]") {
		t.Errorf("no MLC609 at objectStore.artifactGC:\n%s", stderr)
	}
	rbac := opts
	rbac.Namespace = "ml"
	if stderr := build(t, rbac, emit.Options{RBAC: true}).Must(t).Stderr(); strings.Contains(stderr, "MLC609") {
		t.Errorf("with --emit-rbac:\n%s", stderr)
	}
	// Without artifactGC, nothing is collected and nothing is said.
	stderr = build(t, manifestcheck.Specs(enginetest.Example(t, "bucket-pipeline")), emit.Options{}).Must(t).Stderr()
	if strings.Contains(stderr, "MLC609") {
		t.Errorf("bucket-pipeline:\n%s", stderr)
	}
}
