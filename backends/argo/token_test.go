package argo_test

import (
	"strings"
	"testing"

	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/internal/enginetest"
	"github.com/mlcube-compile/mlcube-compile/internal/manifestcheck"
)

// Under --emit-rbac the Workflow mounts no token, and Argo gives its
// executor's token to its own containers alone (setupServiceAccount,
// workflow/controller/workflowpod.go, v3.7.18 and v4.0.7); a container
// template whose program is kubectl (the TrainJob's wait step) mounts
// its account's token itself, or its first kubectl delete fails.
func TestKubectlTemplatesMountTheirToken(t *testing.T) {
	for _, rbac := range []bool{false, true} {
		wf := workflow(t, build(t, manifestcheck.Specs(enginetest.Example(t, "torch-ddp")), emit.Options{RBAC: rbac}))
		waits := 0
		for _, tmpl := range wf.Spec.Templates {
			c := tmpl.Container
			if c == nil || !strings.Contains(strings.Join(c.Command, " "), "kubectl ") {
				continue
			}
			waits++
			mount := wf.Spec.AutomountServiceAccountToken
			if tmpl.AutomountServiceAccountToken != nil {
				mount = tmpl.AutomountServiceAccountToken
			}
			if mount != nil && !*mount {
				t.Errorf("rbac %v: template %s runs kubectl without its account's token", rbac, tmpl.Name)
			}
		}
		if waits == 0 {
			t.Fatalf("rbac %v: no template runs kubectl", rbac)
		}
	}
}
