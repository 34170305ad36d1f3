package job

import (
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/mlcube-compile/mlcube-compile/backends/internal/kube"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
)

// A Job has no artifacts: its pod moves the step's data itself, in the
// platform's tool image. A pod's init containers run one at a time, in
// order, each to its end, before its containers start, so the fetch is
// an init container before the step's; the upload must follow the
// step's container, which a pod orders no other way, so then the step's
// container is an init container too, and the upload the Job's
// container.

const (
	// fetchName and uploadName name the containers that move the data.
	fetchName  = "fetch"
	uploadName = "upload"
	// runIDVar holds the Job's uid, which every key it uploads to starts
	// with: the API server labels the pod template of a Job it creates
	// with batch.kubernetes.io/controller-uid (generateSelector,
	// pkg/registry/batch/job/strategy.go:248-258 of kubernetes v1.35.0;
	// the label is k8s.io/api batch/v1 ControllerUidLabel), and the
	// downward API gives a label of the pod to a variable, which the
	// kubelet replaces in the container's args.
	runIDVar = "MLCUBE_RUN_ID"
	// digestDir holds the digest of each upload, in the upload
	// container's own filesystem: a Job has nowhere to show them but its
	// log, where DigestScript prints them.
	digestDir = "/tmp/mlcube-compile"
)

// moveData adds to spec, the pod of s, the containers that fetch its
// inputs before it runs and upload its outputs when it ends, and the
// volumes they use.
func moveData(p *ir.Pipeline, s *ir.Step, ref func(param string) string, spec *corev1.PodSpec) error {
	if len(s.Fetches) == 0 && len(s.Uploads) == 0 {
		return nil
	}
	if err := kube.RefuseStore(p, "a Job"); err != nil {
		return err
	}
	// A Job runs its step whatever the cache holds, and uploads to the
	// run's keys (JobNoCache).
	uncached := *s
	uncached.Key = nil
	s = &uncached
	m := kube.Mover{
		RunID:      "$(" + runIDVar + ")",
		Ref:        ref,
		DigestFile: func(u ir.Upload) string { return digestDir + "/" + u.Name + ".sha256" },
		Mounts:     kube.Writable(kube.VolumeMounts(s, ref)[:len(s.Mounts)]),
	}
	if len(s.Fetches) > 0 {
		for _, f := range s.Fetches {
			if f.From != nil {
				// One step is all a Job runs, so no other step's upload
				// is there: the compiler made no such fetch.
				return fmt.Errorf("step %s fetches %s of step %s, which a Job does not run", s.Name, f.From.Name, f.From.Step)
			}
		}
		spec.InitContainers = append(spec.InitContainers, m.FetchContainer(p, s, fetchName))
		spec.Volumes = append(spec.Volumes, kube.ScratchVolumeSpec(p))
	}
	if len(s.Uploads) > 0 {
		m.Env = []corev1.EnvVar{{Name: runIDVar, ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{
			FieldPath: "metadata.labels['" + batchv1.ControllerUidLabel + "']",
		}}}}
		var provenance []kube.Phase
		if p.Provenance != nil {
			// The statement of what the Job made, after the uploads.
			one := *p
			one.Steps = []*ir.Step{s}
			provenance = append(provenance, m.ProvenancePhase(&one, "job"))
		}
		spec.InitContainers = append(spec.InitContainers, spec.Containers...)
		spec.Containers = []corev1.Container{m.UploadContainer(p, s, uploadName, provenance...)}
	}
	return nil
}
