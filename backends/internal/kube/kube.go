package kube

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
)

// ShmVolume is the name of the memory-backed /dev/shm volume.
const ShmVolume = "dshm"

// Quantity parses a quantity the compiler has already checked. A bad one
// here is a compiler bug; it becomes a zero quantity, which the validators
// and the tests catch, rather than a crash.
func Quantity(s string) resource.Quantity {
	q, err := resource.ParseQuantity(s)
	if err != nil {
		return resource.Quantity{}
	}
	return q
}

// Resources requests cpu and memory and limits GPUs, which Kubernetes
// requires for extended resources, or names the pod's GPU claim when r
// asks for GPUs by DRA; cpu and memory are limited to their requests too
// when r asks for it.
func Resources(r ir.Resources) corev1.ResourceRequirements {
	out := corev1.ResourceRequirements{Claims: containerClaims(r)}
	req := corev1.ResourceList{}
	if r.CPU != "" {
		req[corev1.ResourceCPU] = Quantity(r.CPU)
	}
	if r.Memory != "" {
		req[corev1.ResourceMemory] = Quantity(r.Memory)
	}
	if len(req) > 0 {
		out.Requests = req
	}
	limits := corev1.ResourceList{}
	if r.GPU > 0 && r.GPUClaim == nil {
		limits[corev1.ResourceName(r.GPUResource)] = *resource.NewQuantity(int64(r.GPU), resource.DecimalSI)
	}
	if r.LimitsEqualRequests {
		for k, v := range req {
			limits[k] = v
		}
	}
	if len(limits) > 0 {
		out.Limits = limits
	}
	return out
}

// HelperResources are what a container of the engine's own asks for,
// such as a kubectl step: a small fixed size, limited to it. A pod
// without requests is BestEffort, the first the kubelet evicts under
// memory pressure, and a wait step evicted or OOM-killed runs no EXIT
// trap to delete its job.
func HelperResources() ir.Resources {
	return ir.Resources{CPU: "100m", Memory: "256Mi", LimitsEqualRequests: true}
}

// Command escapes the step's command words for the kubelet.
func Command(words []string) []string {
	var out []string
	for _, w := range words {
		out = append(out, ir.KubeLiteral(w))
	}
	return out
}

// Arg writes one container argument; ref writes a pipeline parameter
// reference the engine's way.
func Arg(a ir.Arg, ref func(param string) string) string {
	return ir.KubeLiteral(a.Prefix) + a.Value.RenderContainer(ref)
}

// Env sets each variable from its value, from a key of a Secret, or from
// a key of the pipeline's ConfigMap.
func Env(vars []ir.EnvVar, ref func(param string) string) []corev1.EnvVar {
	var out []corev1.EnvVar
	for _, e := range vars {
		switch {
		case e.Secret != nil:
			out = append(out, corev1.EnvVar{Name: e.Name,
				ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
					LocalObjectReference: corev1.LocalObjectReference{Name: e.Secret.Secret}, Key: e.Secret.Key,
				}}})
		case e.Config != nil:
			out = append(out, corev1.EnvVar{Name: e.Name,
				ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{
					LocalObjectReference: corev1.LocalObjectReference{Name: e.Config.ConfigMap}, Key: e.Config.Key,
				}}})
		default:
			out = append(out, corev1.EnvVar{Name: e.Name, Value: e.Value.RenderContainer(ref)})
		}
	}
	return out
}

// ConfigMap is the pipeline's configs, to create before the run; nil when
// it has none.
func ConfigMap(p *ir.Pipeline) *corev1.ConfigMap {
	if p.Config == nil {
		return nil
	}
	return &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: p.Config.Name, Namespace: p.Namespace, Labels: Labels(p.Labels)},
		Data:       p.Config.Data,
	}
}

// VolumeMounts mounts the step's volumes, or their folders and files,
// and /dev/shm when it has one; ref writes a pipeline parameter
// reference in a subPath the engine's way. The kubelet expands no
// variables in a subPath (only in subPathExpr), so it is not escaped.
func VolumeMounts(s *ir.Step, ref func(param string) string) []corev1.VolumeMount {
	var out []corev1.VolumeMount
	for _, m := range s.Mounts {
		out = append(out, corev1.VolumeMount{Name: m.Volume, MountPath: m.MountPath, SubPath: m.SubPath.Render(ref),
			ReadOnly: m.ReadOnly})
	}
	return append(out, ShmMounts(s)...)
}

// ShmMounts mounts /dev/shm when the step has one.
func ShmMounts(s *ir.Step) []corev1.VolumeMount {
	if s.ShmSize == "" && !s.ShmHost {
		return nil
	}
	return []corev1.VolumeMount{{Name: ShmVolume, MountPath: "/dev/shm"}}
}

// ShmVolumes is the memory-backed /dev/shm a step asks for, if any: of
// its size, or with none (ShmHost), which the kubelet makes as large as
// the pod's memory limit, or the node's allocatable memory without one.
func ShmVolumes(s *ir.Step) []corev1.Volume {
	if s.ShmSize == "" && !s.ShmHost {
		return nil
	}
	dir := &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory}
	if s.ShmSize != "" {
		size := Quantity(s.ShmSize)
		dir.SizeLimit = &size
	}
	return []corev1.Volume{{Name: ShmVolume, VolumeSource: corev1.VolumeSource{EmptyDir: dir}}}
}

// Tolerations converts the step's tolerations.
func Tolerations(ts []ir.Toleration) []corev1.Toleration {
	var out []corev1.Toleration
	for _, t := range ts {
		out = append(out, corev1.Toleration{
			Key: t.Key, Operator: corev1.TolerationOperator(t.Operator), Value: t.Value,
			Effect: corev1.TaintEffect(t.Effect), TolerationSeconds: t.TolerationSeconds,
		})
	}
	return out
}

// ImagePullSecrets names the platform's pull secrets.
func ImagePullSecrets(names []string) []corev1.LocalObjectReference {
	var out []corev1.LocalObjectReference
	for _, n := range names {
		out = append(out, corev1.LocalObjectReference{Name: n})
	}
	return out
}

// ClaimSpec is the spec of a claim created for each run.
func ClaimSpec(c *ir.ClaimTemplate) corev1.PersistentVolumeClaimSpec {
	spec := corev1.PersistentVolumeClaimSpec{
		Resources: corev1.VolumeResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceStorage: Quantity(c.Size)},
		},
	}
	for _, m := range c.AccessModes {
		spec.AccessModes = append(spec.AccessModes, corev1.PersistentVolumeAccessMode(m))
	}
	if c.StorageClassName != "" {
		sc := c.StorageClassName
		spec.StorageClassName = &sc
	}
	return spec
}

// RunMeta is the metadata of the object that runs p: a name the API
// server completes, the namespace, and the pipeline's labels with extra
// ones laid over them.
func RunMeta(p *ir.Pipeline, extra ...map[string]string) metav1.ObjectMeta {
	return metav1.ObjectMeta{GenerateName: "mlcube-" + p.Name + "-", Namespace: p.Namespace,
		Labels: Labels(p.Labels, extra...)}
}

// Labels copies labels and lays extra ones over them.
func Labels(base map[string]string, extra ...map[string]string) map[string]string {
	out := make(map[string]string, len(base))
	for k, v := range base {
		out[k] = v
	}
	for _, m := range extra {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}
