package distributed

import (
	"context"
	"fmt"
	"sync"

	configapi "github.com/kubeflow/trainer/v2/pkg/apis/config/v1alpha1"
	trainer "github.com/kubeflow/trainer/v2/pkg/apis/trainer/v1alpha1"
	trainruntime "github.com/kubeflow/trainer/v2/pkg/runtime"
	trainruntimes "github.com/kubeflow/trainer/v2/pkg/runtime/core"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	jobset "sigs.k8s.io/jobset/api/jobset/v1alpha2"
)

// trainValidator runs Trainer's own admission checks of a TrainJob in
// process: the validating webhook hands a TrainJob to the runtime it
// names, whose plugins check it against the runtime's template
// (TrainJobValidator.ValidateCreate, pkg/webhooks/trainjob_webhook.go,
// and ValidateObjects, pkg/runtime/core/clustertrainingruntime.go,
// v2.3.0). The runtimes are read from an in-memory client that holds, for
// every runtime a job names, the shape of Trainer's torch-distributed
// runtime: the compiler patches its node job and container, so a
// runtime it runs on must have them.
type trainValidator struct {
	mu       sync.Mutex
	client   client.Client
	runtimes map[string]trainruntime.Runtime
	err      error
}

var trainValidation = sync.OnceValue(newTrainValidator)

func newTrainValidator() *trainValidator {
	scheme := apiruntime.NewScheme()
	v := &trainValidator{}
	for _, add := range []func(*apiruntime.Scheme) error{trainer.AddToScheme, jobset.AddToScheme} {
		if v.err = add(scheme); v.err != nil {
			return v
		}
	}
	v.client = fake.NewClientBuilder().WithScheme(scheme).Build()
	v.runtimes, v.err = trainruntimes.New(context.Background(), v.client, noIndexes{}, &configapi.Configuration{})
	return v
}

// validateTrainJob checks job as Trainer's webhook would when it is
// created, named as the API server would name it.
func validateTrainJob(job *trainer.TrainJob) error {
	v := trainValidation()
	if v.err != nil {
		return fmt.Errorf("setting up Trainer's validation: %w", v.err)
	}
	created := job.DeepCopy()
	created.Name = trainJobName(job)
	if created.Namespace == "" {
		created.Namespace = metav1.NamespaceDefault
	}
	ref := created.Spec.RuntimeRef
	v.mu.Lock()
	defer v.mu.Unlock()
	if err := v.client.Create(context.Background(), torchRuntimeShape(ref, created.Namespace)); err != nil &&
		!apierrors.IsAlreadyExists(err) {
		return err
	}
	rt, ok := v.runtimes[trainruntime.RuntimeRefToRuntimeRegistryKey(ref)]
	if !ok {
		return fmt.Errorf("the TrainJob names a runtime of kind %s, which Trainer does not have", ptr.Deref(ref.Kind, ""))
	}
	if _, errs := rt.ValidateObjects(context.Background(), nil, created); len(errs) > 0 {
		return fmt.Errorf("the TrainJob fails Trainer's validation: %w", errs.ToAggregate())
	}
	return nil
}

// torchRuntimeShape is a runtime named as ref names it, of the shape of
// Trainer's torch-distributed runtime: the torch policy, and one
// replicated job, node, the trainer, with one container, node
// (manifests/base/runtimes/torch_distributed.yaml, v2.3.0).
func torchRuntimeShape(ref trainer.RuntimeRef, namespace string) client.Object {
	spec := trainer.TrainingRuntimeSpec{
		MLPolicy: &trainer.MLPolicy{NumNodes: ptr.To(int32(1)),
			MLPolicySource: trainer.MLPolicySource{Torch: &trainer.TorchMLPolicySource{}}},
		Template: trainer.JobSetTemplateSpec{
			Spec: jobset.JobSetSpec{ReplicatedJobs: []jobset.ReplicatedJob{{Name: trainNode}}},
		},
	}
	node := &spec.Template.Spec.ReplicatedJobs[0].Template
	node.Labels = map[string]string{"trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}
	node.Spec.Template.Spec.Containers = []corev1.Container{{Name: trainNode}}
	if ptr.Deref(ref.Kind, "") == trainer.TrainingRuntimeKind {
		return &trainer.TrainingRuntime{ObjectMeta: metav1.ObjectMeta{Name: ref.Name, Namespace: namespace}, Spec: spec}
	}
	return &trainer.ClusterTrainingRuntime{ObjectMeta: metav1.ObjectMeta{Name: ref.Name}, Spec: spec}
}

// noIndexes stands in for the manager's field indexer, which the
// runtimes register their indexes with; validation lists nothing.
type noIndexes struct{}

func (noIndexes) IndexField(context.Context, client.Object, string, client.IndexerFunc) error {
	return nil
}
