package distributed

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/mlcube-compile/mlcube-compile/backends/internal/kube"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
)

// ClaimName returns the name a volume's claim has when the job is
// created: the engine knows the name of a claim it creates per run.
type ClaimName func(v ir.Volume) string

// noParams writes parameter references, which the compiler refuses in
// distributed steps; an empty reference would show in the golden files.
func noParams(string) string { return "" }

// container is a container of the step's job: its image, env, mounts and
// security.
func container(p *ir.Pipeline, s *ir.Step, name string, command, args []string, r ir.Resources) corev1.Container {
	return corev1.Container{
		Name:            name,
		Image:           s.Image,
		ImagePullPolicy: corev1.PullPolicy(s.ImagePullPolicy),
		Command:         command,
		Args:            args,
		Env:             kube.Env(s.Env, noParams),
		VolumeMounts:    kube.VolumeMounts(s, noParams),
		Resources:       kube.Resources(r),
		SecurityContext: kube.StepSecurity(p),
	}
}

// podSpec is a pod of the step's job: its volumes, security and pull
// secrets, placed by selector and tolerations.
func podSpec(p *ir.Pipeline, s *ir.Step, claim ClaimName, sel map[string]string, tols []ir.Toleration,
	c ...corev1.Container) corev1.PodSpec {
	spec := corev1.PodSpec{
		Containers:         c,
		RestartPolicy:      corev1.RestartPolicyNever,
		ServiceAccountName: p.JobServiceAccountName,
		NodeSelector:       sel,
		Tolerations:        kube.Tolerations(tols),
		SecurityContext:    kube.PodSecurityContext(p, s.SecurityContext),
		ImagePullSecrets:   kube.ImagePullSecrets(p.ImagePullSecrets),
		Volumes:            kube.ShmVolumes(s),
		PriorityClassName:  s.PriorityClassName,
	}
	// The pods of a job never run under the run's own account, which may
	// create jobs: the platform's jobServiceAccountName, or the
	// namespace's default account with no API token, since neither MPI
	// ranks nor Dask pods call the API.
	if p.JobServiceAccountName == "" {
		spec.AutomountServiceAccountToken = ptr.To(false)
	}
	for _, m := range s.Mounts {
		for _, v := range p.Volumes {
			if v.Name == m.Volume && !slices.ContainsFunc(spec.Volumes,
				func(have corev1.Volume) bool { return have.Name == v.Name }) {
				spec.Volumes = append(spec.Volumes, corev1.Volume{Name: v.Name, VolumeSource: corev1.VolumeSource{
					PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim(v)},
				}})
			}
		}
	}
	return spec
}

// withGPUClaims gives a pod whose container asks for r the claim its
// GPUs by DRA are, when they are: an MPIJob's pod template carries
// resourceClaims as a PodSpec does (the CRDs of mpi-operator v0.8.2 and
// the training operator v1.9.3 have it), while the Dask operator's has
// none, so the compiler asks for Dask workers' GPUs as a limit.
func withGPUClaims(spec corev1.PodSpec, r ir.Resources) corev1.PodSpec {
	spec.ResourceClaims = kube.PodResourceClaims(r)
	return spec
}

// queuedJobMeta is the metadata of a job Kueue may admit (an MPIJob, a
// TrainJob): named from generateName, labelled as its pods (meta) are,
// with the run's and step's labels and the step's queue labels.
func queuedJobMeta(p *ir.Pipeline, s *ir.Step, meta metav1.ObjectMeta, generateName, runName string) metav1.ObjectMeta {
	return metav1.ObjectMeta{
		GenerateName: generateName, Namespace: p.Namespace,
		Labels: kube.Labels(withRun(meta.Labels, runName, s.Name), kube.QueueLabels(s)),
	}
}

// objectMeta labels a job and its pods like the engine's own objects.
func objectMeta(p *ir.Pipeline, s *ir.Step) metav1.ObjectMeta {
	return metav1.ObjectMeta{Labels: kube.Labels(p.Labels, s.Labels)}
}
