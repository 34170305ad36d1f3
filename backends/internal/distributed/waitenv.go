package distributed

import (
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
)

// The kubelet's references to the env vars of the container that runs
// WaitScript, which name the pod that owns the job.
const (
	PodName = "$(POD_NAME)"
	PodUID  = "$(POD_UID)"
)

// WaitEnv is the env of the container that runs WaitScript for the job
// of step s of run runName: manifest is the job as OwnedManifest makes it.
func WaitEnv(job *Job, s *ir.Step, manifest, runName string) []corev1.EnvVar {
	timeout := "0"
	if s.Timeout > 0 {
		timeout = strconv.Itoa(int(s.Timeout.Seconds()))
	}
	env := []corev1.EnvVar{
		{Name: "POD_NAME",
			ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
		{Name: "POD_UID", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.uid"}}},
		{Name: "MANIFEST", Value: manifest},
		{Name: "RESOURCE", Value: job.Kind()},
		{Name: "SELECTOR", Value: Selector(s, runName)},
		{Name: "STATUS", Value: job.Status},
		{Name: "SUCCEEDED", Value: job.Succeeded},
		{Name: "FAILED", Value: job.Failed},
		{Name: "TIMEOUT", Value: timeout},
	}
	if a := job.Autoscaler; a != nil {
		env = append(env,
			corev1.EnvVar{Name: "AUTOSCALER_MIN", Value: strconv.Itoa(a.Minimum)},
			corev1.EnvVar{Name: "AUTOSCALER_MAX", Value: strconv.Itoa(a.Maximum)})
	}
	return env
}

// OwnedManifest is the job's manifest as MANIFEST carries it, owned by
// the pod that runs WaitScript: the kubelet expands $(POD_NAME) and
// $(POD_UID) in it, since both are defined before it, so Kubernetes
// deletes the job with the pod even when the script is killed before its
// trap runs. Every other $ is escaped but for refs, the engine's own
// references, which it replaces before the kubelet sees them. It must
// fit in one environment string; fix says how to make it smaller.
func OwnedManifest(job *Job, s *ir.Step, refs []string, fix string) (string, error) {
	doc, err := job.JSONOwnedBy(map[string]string{"apiVersion": "v1", "kind": "Pod", "name": PodName, "uid": PodUID})
	if err != nil {
		return "", err
	}
	manifest := escapeLiterals(doc, append(refs, PodName, PodUID))
	// The engine substitutes the run's name and the kubelet the pod's
	// name and uid, each at most a DNS subdomain of 253 characters, a few
	// times over: 2 KiB holds them.
	err = emit.CheckEnvString("MANIFEST", manifest, 2<<10, s.Loc, fix)
	return manifest, err
}

// escapeLiterals escapes every $ of s for the kubelet, which expands
// $(VAR) and $$ in env values, but for refs.
func escapeLiterals(s string, refs []string) string {
	pieces := []string{s}
	for _, ref := range refs {
		var next []string
		for i, piece := range pieces {
			if i%2 == 1 {
				next = append(next, piece)
				continue
			}
			parts := strings.Split(piece, ref)
			for j, part := range parts {
				if j > 0 {
					next = append(next, ref)
				}
				next = append(next, part)
			}
		}
		pieces = next
	}
	var out strings.Builder
	for i, piece := range pieces {
		if i%2 == 1 {
			out.WriteString(piece)
			continue
		}
		out.WriteString(strings.ReplaceAll(piece, "$", "$$"))
	}
	return out.String()
}
