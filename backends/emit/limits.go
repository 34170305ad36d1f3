package emit

import (
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// Limits on one object's size that the API server or an engine enforces.
const (
	// ArgoWorkflowLimit is the size above which Argo refuses a Workflow.
	ArgoWorkflowLimit = 1 << 20
	// ObjectLimit is etcd's default limit on one request, which bounds
	// every object the API server stores.
	ObjectLimit = 3 << 19 // 1.5 MiB
	// annotationsLimit bounds the annotations of one object, keys and values.
	annotationsLimit = 256 << 10
	// configMapLimit bounds the data of one ConfigMap.
	configMapLimit = 1 << 20
	// envStringLimit is Linux's MAX_ARG_STRLEN (32 pages): execve refuses
	// any one argument or NAME=value environment string, with its
	// terminating NUL, longer than this ("argument list too long").
	envStringLimit = 128 << 10
)

// CheckEnvString refuses, at whose it is (at), an environment variable
// that no container could start with, saying what to do instead (fix).
// grow is what substitutions at run time may add to value.
func CheckEnvString(name, value string, grow int, at diag.Loc, fix string) error {
	if size := len(name) + 1 + len(value) + grow + 1; size > envStringLimit {
		return Refuse(diag.TooLarge, at, "%s", fmt.Sprintf("the variable %s would be %s, over Linux's limit on one "+
			"environment string of %s (MAX_ARG_STRLEN), so the container could not start (\"argument list too long\"); %s", name,
			bytesText(size), bytesText(envStringLimit), fix))
	}
	return nil
}

// tooLarge refuses, at at, an object the cluster would refuse for its
// size: the spec's fault, not the compiler's. what is the part that is
// too large, such as "the Workflow", and rule whose limit it is.
func tooLarge(at diag.Loc, what string, size, limit int, rule string) error {
	return Refuse(diag.TooLarge, at, "%s would be %s, over %s of %s (%s)", what, bytesText(size), rule,
		bytesText(limit), ir.SplitHint)
}

// CheckSize refuses obj, at at, when its JSON encoding, which is what the
// API server stores, is over limit; rule names whose limit that is. It
// also holds the object's annotations and a ConfigMap's data to their
// limits.
func CheckSize(obj any, at diag.Loc, what string, limit int, rule string) error {
	raw, err := json.Marshal(obj)
	if err != nil {
		return fmt.Errorf("encoding %s: %w", what, err)
	}
	if len(raw) > limit {
		return tooLarge(at, what, len(raw), limit, rule)
	}
	if m, ok := obj.(metav1.Object); ok {
		if n := annotationBytes(m.GetAnnotations()); n > annotationsLimit {
			return tooLarge(at, "the annotations of "+what, n, annotationsLimit, "the Kubernetes limit on annotations")
		}
	}
	if cm, ok := obj.(*corev1.ConfigMap); ok {
		if n := configMapBytes(cm); n > configMapLimit {
			return tooLarge(at, "the data of "+what, n, configMapLimit, "the Kubernetes limit on a ConfigMap")
		}
	}
	return nil
}

// annotationBytes counts annotations as the API server does: keys and values.
func annotationBytes(a map[string]string) int {
	n := 0
	for k, v := range a {
		n += len(k) + len(v)
	}
	return n
}

func configMapBytes(cm *corev1.ConfigMap) int {
	n := 0
	for k, v := range cm.Data {
		n += len(k) + len(v)
	}
	for k, v := range cm.BinaryData {
		n += len(k) + len(v)
	}
	return n
}

// bytesText prints a size the way limits are usually written.
func bytesText(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
