package distributed

import (
	"strings"
	"sync"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	jobset "sigs.k8s.io/jobset/api/jobset/v1alpha2"
)

// threeJobSet is a valid JobSet of the Dask form's shape: a scheduler,
// workers that start once it is ready, and a client that starts once they
// are; the JobSet succeeds when the client does.
func threeJobSet() *jobset.JobSet {
	rjob := func(name string, n int32, after string) jobset.ReplicatedJob {
		r := jobset.ReplicatedJob{Name: name, Template: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{
			CompletionMode: ptr.To(batchv1.IndexedCompletion),
			Parallelism:    ptr.To(n), Completions: ptr.To(n), BackoffLimit: ptr.To(int32(0)),
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever,
				Containers:    []corev1.Container{{Name: name, Image: "mlcube-e2e/dask:1"}},
			}},
		}}}
		if after != "" {
			r.DependsOn = []jobset.DependsOn{{Name: after, Status: jobset.DependencyReady}}
		}
		return r
	}
	return &jobset.JobSet{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "deepecho-benchmark-fixed-"},
		Spec: jobset.JobSetSpec{
			Network: &jobset.Network{EnableDNSHostnames: ptr.To(true)},
			SuccessPolicy: &jobset.SuccessPolicy{Operator: jobset.OperatorAny,
				TargetReplicatedJobs: []string{"client"}},
			ReplicatedJobs: []jobset.ReplicatedJob{rjob("scheduler", 1, ""), rjob("worker", 2, "scheduler"),
				rjob("client", 1, "worker")},
		},
	}
}

func TestJobSetValidationAccepts(t *testing.T) {
	js := threeJobSet()
	if err := validateJobSet(js); err != nil {
		t.Fatalf("a valid JobSet: %v", err)
	}
	if js.Name != "" || js.Spec.ReplicatedJobs[0].GroupName != "" || js.Spec.StartupPolicy != nil ||
		js.Spec.Network.PublishNotReadyAddresses != nil || js.Spec.ReplicatedJobs[0].Replicas != 0 {
		t.Error("validation changed the JobSet it was given; it works on a copy")
	}
	// The longest generateName the pod names allow: 38 characters, with
	// the API server's 5 and "-scheduler-0-0-abcde".
	js.GenerateName = strings.Repeat("a", 37) + "-"
	if err := validateJobSet(js); err != nil {
		t.Errorf("a generateName of 38 characters: %v", err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if err := validateJobSet(threeJobSet()); err != nil {
				t.Errorf("concurrently: %v", err)
			}
		})
	}
	wg.Wait()
}

// JobSet's webhook and CRD rules run in process: a JobSet they would
// refuse is refused before anything is printed. Each case is valid but
// for its change, so a validation that did nothing would fail them all.
func TestJobSetValidationRefuses(t *testing.T) {
	for name, tc := range map[string]struct {
		change func(*jobset.JobSet)
		want   string
	}{
		"pod names too long": {func(js *jobset.JobSet) { js.GenerateName = strings.Repeat("a", 38) + "-" },
			"pod names generated for this JobSet will exceed 63 characters"},
		"unknown success target": {func(js *jobset.JobSet) {
			js.Spec.SuccessPolicy.TargetReplicatedJobs = []string{"runner"}
		}, "invalid replicatedJob name 'runner' does not appear in .spec.ReplicatedJobs"},
		"dependsOn on the first": {func(js *jobset.JobSet) {
			js.Spec.ReplicatedJobs[0].DependsOn = []jobset.DependsOn{{Name: "worker", Status: jobset.DependencyReady}}
		}, "DependsOn can't be set for the first ReplicatedJob"},
		"dependsOn a later job": {func(js *jobset.JobSet) { js.Spec.ReplicatedJobs[1].DependsOn[0].Name = "client" },
			"replicatedJob: worker cannot depend on replicatedJob: client"},
		"bare managedBy": {func(js *jobset.JobSet) { js.Spec.ManagedBy = ptr.To("multikueue") },
			"spec.managedBy"},
		"InOrder with dependsOn": {func(js *jobset.JobSet) {
			js.Spec.StartupPolicy = &jobset.StartupPolicy{StartupPolicyOrder: jobset.InOrder}
		}, "StartupPolicy and DependsOn APIs are mutually exclusive"},
		"Indexed without completions": {func(js *jobset.JobSet) {
			js.Spec.ReplicatedJobs[2].Template.Spec.Completions = nil
		}, "spec.replicatedJobs[2].template.spec.completions: Required value"},
		"pods that always restart": {func(js *jobset.JobSet) {
			js.Spec.ReplicatedJobs[1].Template.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyAlways
		}, `restartPolicy: Unsupported value: "Always"`},
	} {
		js := threeJobSet()
		tc.change(js)
		if err := validateJobSet(js); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want a refusal (%s)", name, err, tc.want)
		}
	}
}

// The webhook's defaults are applied before it validates: a JobSet that
// leaves the restart policy to JobSet gets OnFailure, which a Job allows,
// and the CRD's groupName default keeps ValidateCreate from refusing an
// empty group.
func TestJobSetValidationDefaults(t *testing.T) {
	js := threeJobSet()
	js.Spec.Network = nil
	js.Spec.SuccessPolicy = nil
	for i := range js.Spec.ReplicatedJobs {
		js.Spec.ReplicatedJobs[i].Template.Spec.Template.Spec.RestartPolicy = ""
	}
	if err := validateJobSet(js); err != nil {
		t.Fatalf("a JobSet left to JobSet's defaults: %v", err)
	}
}
