package tekton

import (
	"slices"

	v1 "github.com/tektoncd/pipeline/pkg/apis/pipeline/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/mlcube-compile/mlcube-compile/backends/internal/distributed"
	"github.com/mlcube-compile/mlcube-compile/backends/internal/kube"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
)

// cleanupScript deletes every job of the run, by its run label.
const cleanupScript = `#!/bin/sh
set -eu
kubectl delete "$KINDS" -l "$SELECTOR" --ignore-not-found --wait=false
`

// cleanupTask is the run's finally task when its steps create jobs: when
// the run did not succeed, it deletes every job the run created. A
// stopped wait step deletes its job by its EXIT trap, and a deleted step
// pod takes its job with it by the job's owner reference; but a wait step
// that is OOM-killed or evicted runs no trap, and its Failed pod object
// survives, so neither fires and the job keeps its GPUs. Tekton runs the
// finally tasks once every other task has ended, whatever their outcome,
// with $(tasks.status) set (pkg/reconciler/pipelinerun/resources/
// pipelinerunstate.go); a cancelled run skips them unless it is
// CancelledRunFinally, and there the trap and the owner reference act.
func cleanupTask(p *ir.Pipeline) (v1.PipelineTask, bool) {
	kinds := distributed.Kinds(p)
	if kinds == "" {
		return v1.PipelineTask{}, false
	}
	name, pull := "cleanup", ""
	for slices.ContainsFunc(p.Steps, func(s *ir.Step) bool { return s.Name == name }) {
		name += "-jobs"
	}
	if i := slices.IndexFunc(p.Steps, func(s *ir.Step) bool { return s.Kind != ir.Container }); i >= 0 {
		pull = p.Steps[i].ImagePullPolicy
	}
	return v1.PipelineTask{
		Name: name,
		When: v1.WhenExpressions{{Input: "$(tasks.status)", Operator: "notin", Values: []string{"Succeeded", "Completed"}}},
		TaskSpec: &v1.EmbeddedTask{
			Metadata: v1.PipelineTaskMetadata{Labels: p.Labels},
			TaskSpec: v1.TaskSpec{Steps: []v1.Step{{
				Name: stepName, Image: p.KubectlImage, ImagePullPolicy: corev1.PullPolicy(pull),
				Env: []corev1.EnvVar{
					{Name: "KINDS", Value: kinds},
					{Name: "SELECTOR", Value: distributed.RunLabel + "=" + runName},
				},
				Script:           cleanupScript,
				ComputeResources: kube.Resources(kube.HelperResources()),
				SecurityContext:  kube.HelperSecurity(p, nil),
			}}},
		},
	}, true
}
