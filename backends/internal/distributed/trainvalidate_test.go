package distributed

import (
	"strings"
	"testing"

	trainer "github.com/kubeflow/trainer/v2/pkg/apis/trainer/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// Trainer's webhook rules run in process: a TrainJob it would refuse is
// refused before anything is printed, whatever runtime it names.
func TestTrainerValidationRefuses(t *testing.T) {
	ok := func() *trainer.TrainJob {
		return &trainer.TrainJob{
			ObjectMeta: metav1.ObjectMeta{GenerateName: "run-train-"},
			Spec: trainer.TrainJobSpec{
				RuntimeRef: trainer.RuntimeRef{
					Name: "torch-distributed", APIGroup: ptr.To(trainGroup), Kind: ptr.To(trainer.ClusterTrainingRuntimeKind),
				},
				Trainer: &trainer.Trainer{NumNodes: ptr.To(int32(2))},
				RuntimePatches: []trainer.RuntimePatch{{
					Manager: patchManager,
					TrainingRuntimeSpec: &trainer.TrainingRuntimeSpecPatch{
						Template: &trainer.JobSetTemplatePatch{Spec: &trainer.JobSetSpecPatch{
							ReplicatedJobs: []trainer.ReplicatedJobPatch{{Name: trainNode}},
						}},
					},
				}},
			},
		}
	}
	if err := validateTrainJob(ok()); err != nil {
		t.Fatalf("a valid TrainJob: %v", err)
	}
	for name, tc := range map[string]struct {
		change func(*trainer.TrainJob)
		want   string
	}{
		"reserved env": {func(j *trainer.TrainJob) { j.Spec.Trainer.Env = []corev1.EnvVar{{Name: "PET_NNODES", Value: "3"}} },
			"reserved envs"},
		"bare manager": {func(j *trainer.TrainJob) { j.Spec.RuntimePatches[0].Manager = "compiler" }, "domain-prefixed"},
		"namespaced runtime": {func(j *trainer.TrainJob) {
			j.Spec.RuntimeRef.Kind, j.Spec.RuntimeRef.Name = ptr.To(trainer.TrainingRuntimeKind), "team-torch"
			j.Spec.Trainer.Env = []corev1.EnvVar{{Name: "PET_MASTER_PORT", Value: "1"}}
		}, "reserved envs"},
	} {
		job := ok()
		tc.change(job)
		if err := validateTrainJob(job); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want Trainer's refusal (%s)", name, err, tc.want)
		}
	}
}
