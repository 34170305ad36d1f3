package kube

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"

	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
)

// quantities compare by value: resource.Quantity caches its string form.
var quantities = cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 })

func TestResources(t *testing.T) {
	for _, c := range []struct {
		name string
		in   ir.Resources
		want corev1.ResourceRequirements
	}{
		{"nothing", ir.Resources{}, corev1.ResourceRequirements{}},
		{"cpu and memory are requests only", ir.Resources{CPU: "2", Memory: "4Gi"}, corev1.ResourceRequirements{
			Requests: corev1.ResourceList{
				corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("4Gi"),
			},
		}},
		{"GPUs are a limit of their resource name", ir.Resources{GPU: 2, GPUResource: "amd.com/gpu"},
			corev1.ResourceRequirements{Limits: corev1.ResourceList{"amd.com/gpu": resource.MustParse("2")}}},
		{"limits equal requests when asked",
			ir.Resources{CPU: "500m", GPU: 1, GPUResource: "nvidia.com/gpu", LimitsEqualRequests: true},
			corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")},
				Limits: corev1.ResourceList{
					corev1.ResourceCPU: resource.MustParse("500m"), "nvidia.com/gpu": resource.MustParse("1"),
				},
			}},
	} {
		if diff := cmp.Diff(c.want, Resources(c.in), quantities); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
}

func TestEnv(t *testing.T) {
	ref := func(p string) string { return "{{" + p + "}}" }
	in := []ir.EnvVar{
		{Name: "PLAIN", Value: ir.Lit("a $(b)")},
		{Name: "PARAM", Value: ir.Text{{Literal: "x-"}, {Param: "epochs"}}},
		{Name: "TOKEN", Secret: &ir.SecretKey{Secret: "creds", Key: "token"}},
		{Name: "CONFIG", Config: &ir.ConfigKey{ConfigMap: "cfg", Key: "conf.json"}},
	}
	want := []corev1.EnvVar{
		{Name: "PLAIN", Value: "a $$(b)"},
		{Name: "PARAM", Value: "x-{{epochs}}"},
		{Name: "TOKEN", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: "creds"}, Key: "token",
		}}},
		{Name: "CONFIG", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: "cfg"}, Key: "conf.json",
		}}},
	}
	if diff := cmp.Diff(want, Env(in, ref)); diff != "" {
		t.Errorf("Env (-want +got):\n%s", diff)
	}
}

func TestPodSecurityContext(t *testing.T) {
	for _, c := range []struct {
		name string
		in   *ir.SecurityContext
		want *corev1.PodSecurityContext
	}{
		{"none", nil, nil},
		{"user only", &ir.SecurityContext{RunAsUser: ptr.To[int64](1000)},
			&corev1.PodSecurityContext{RunAsUser: ptr.To[int64](1000)}},
		{"fsGroup changes only a mismatched root",
			&ir.SecurityContext{FSGroup: ptr.To[int64](1000), RunAsNonRoot: ptr.To(true)},
			&corev1.PodSecurityContext{
				FSGroup: ptr.To[int64](1000), RunAsNonRoot: ptr.To(true),
				FSGroupChangePolicy: ptr.To(corev1.FSGroupChangeOnRootMismatch),
			}},
	} {
		if diff := cmp.Diff(c.want, PodSecurityContext(&ir.Pipeline{}, c.in)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
}

func TestVolumesAndMounts(t *testing.T) {
	s := &ir.Step{Mounts: []ir.Mount{
		{Volume: "workspace", MountPath: "/mnt/mlcube"},
		{Volume: "workspace", MountPath: "/data", Name: "data", SubPath: ir.Text{{Literal: "raw/"}, {Param: "site"}},
			ReadOnly: true},
	}, ShmSize: "1Gi"}
	wantMounts := []corev1.VolumeMount{
		{Name: "workspace", MountPath: "/mnt/mlcube"},
		{Name: "workspace", MountPath: "/data", SubPath: "raw/$(params.site)", ReadOnly: true},
		{Name: ShmVolume, MountPath: "/dev/shm"},
	}
	ref := func(p string) string { return "$(params." + p + ")" }
	if diff := cmp.Diff(wantMounts, VolumeMounts(s, ref)); diff != "" {
		t.Errorf("VolumeMounts (-want +got):\n%s", diff)
	}
	size := resource.MustParse("1Gi")
	wantShm := []corev1.Volume{{Name: ShmVolume, VolumeSource: corev1.VolumeSource{
		EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory, SizeLimit: &size},
	}}}
	if diff := cmp.Diff(wantShm, ShmVolumes(s), quantities); diff != "" {
		t.Errorf("ShmVolumes (-want +got):\n%s", diff)
	}
	if got := ShmVolumes(&ir.Step{}); got != nil {
		t.Errorf("a step without shm has shm volumes: %v", got)
	}
}

func TestClaimSpec(t *testing.T) {
	got := ClaimSpec(&ir.ClaimTemplate{Size: "100Gi", StorageClassName: "fast", AccessModes: []string{"ReadWriteMany"}})
	want := corev1.PersistentVolumeClaimSpec{
		AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany},
		StorageClassName: ptr.To("fast"),
		Resources: corev1.VolumeResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("100Gi")},
		},
	}
	if diff := cmp.Diff(want, got, quantities); diff != "" {
		t.Errorf("ClaimSpec (-want +got):\n%s", diff)
	}
}

func TestRunMetaLaysLabelsOver(t *testing.T) {
	p := &ir.Pipeline{Name: "demo", Namespace: "ml", Labels: map[string]string{"team": "a", "app": "demo"}}
	got := RunMeta(p, map[string]string{"team": "b"})
	if diff := cmp.Diff(map[string]string{"team": "b", "app": "demo"}, got.Labels); diff != "" {
		t.Errorf("labels (-want +got):\n%s", diff)
	}
	if got.GenerateName != "mlcube-demo-" || got.Namespace != "ml" {
		t.Errorf("meta %+v", got)
	}
	if p.Labels["team"] != "a" {
		t.Errorf("RunMeta changed the pipeline's labels: %v", p.Labels)
	}
}

func TestTolerationsAndCommand(t *testing.T) {
	in := []ir.Toleration{{Key: "gpu", Operator: "Exists", Effect: "NoSchedule", TolerationSeconds: ptr.To[int64](30)}}
	want := []corev1.Toleration{{Key: "gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule,
		TolerationSeconds: ptr.To[int64](30)}}
	if diff := cmp.Diff(want, Tolerations(in)); diff != "" {
		t.Errorf("Tolerations (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"python", "$$(HOME)"}, Command([]string{"python", "$(HOME)"})); diff != "" {
		t.Errorf("Command (-want +got):\n%s", diff)
	}
}

func TestQueueLabels(t *testing.T) {
	for _, c := range []struct {
		name string
		in   ir.Step
		want map[string]string
	}{
		{"no queue, no labels", ir.Step{}, nil},
		{"a WorkloadPriorityClass is read only with a queue", ir.Step{WorkloadPriorityClass: "urgent"}, nil},
		{"a queue", ir.Step{Queue: "team-a"}, map[string]string{"kueue.x-k8s.io/queue-name": "team-a"}},
		{"a queue and its priority", ir.Step{Queue: "team-a", WorkloadPriorityClass: "urgent"}, map[string]string{
			"kueue.x-k8s.io/queue-name": "team-a", "kueue.x-k8s.io/priority-class": "urgent",
		}},
	} {
		if diff := cmp.Diff(c.want, QueueLabels(&c.in)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
}
