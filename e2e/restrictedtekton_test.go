//go:build e2e

package e2e

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// TestE2ETektonRestricted runs examples/bucket-pipeline on Tekton,
// compiled with podSecurity: restricted, and puts every pod Tekton made
// of it to the API server's own restricted Pod Security admission
// (issue 49, point 14). Tekton's init containers (prepare,
// place-scripts) get a securityContext only with its
// set-security-context feature flag (pkg/pod/pod.go); the suite's Tekton
// runs its init containers from the suite's image, which runs as root,
// so the shared cluster keeps the flag off, and the run's namespace
// enforces restricted only where the cluster has the flag on. Either
// way each pod, with its init containers as the flag makes them
// (security_context_config.go), passes a server-side dry run in the
// run's namespace, then enforcing restricted; the pod as made fails it without
// the flag, which is why the compiler refuses restricted on Tekton
// unless the platform says the flag is on (MLC361).
func TestE2ETektonRestricted(t *testing.T) {
	c, s := e2eCluster(t), e2eObjectStore(t)
	seedBucket(t, s)
	docs := compileWith(t, "bucket-pipeline", "tekton", tektonImage, map[string]any{
		"podSecurity": "restricted", "tekton": map[string]any{"setSecurityContext": true},
		"securityContext": map[string]any{"runAsUser": 1000, "runAsGroup": 1000},
	})
	r := c.newTektonRun(t, "locked-bucket", docs, decodePipelineRun(t, docs[len(docs)-1]))
	s.credentials(t, c, r.ns)
	flag := c.jsonPath(t, "tekton-pipelines", "configmap/feature-flags", "{.data.set-security-context}") == "true"
	enforce := "privileged"
	if flag {
		enforce = "restricted"
	}
	c.must(t, "", "label", "namespace", r.ns, "pod-security.kubernetes.io/enforce="+enforce, "--overwrite")
	done := r.run(t, 8*time.Minute)
	if cond := done.Status.GetCondition("Succeeded"); cond == nil || cond.Status != corev1.ConditionTrue {
		t.Fatalf("PipelineRun %s: %+v\n%s", done.Name, cond, c.must(t, "", "-n", r.ns, "get", "taskruns,pods"))
	}
	check := r.ns
	c.must(t, "", "label", "namespace", check, "pod-security.kubernetes.io/enforce=restricted", "--overwrite")
	for task, pod := range r.tektonPods(t) {
		var p corev1.Pod
		if err := json.Unmarshal([]byte(c.must(t, "", "-n", r.ns, "get", "pod", pod, "-o", "json")), &p); err != nil {
			t.Fatal(err)
		}
		refused := dryRun(c, check, p.Spec)
		for i := range p.Spec.InitContainers {
			p.Spec.InitContainers[i].SecurityContext = tektonInitSecurity()
		}
		if err := dryRun(c, check, p.Spec); err != nil {
			t.Errorf("task %s: pod %s, with Tekton's init containers as its flag makes them, is refused: %v", task, pod, err)
		}
		if !flag && refused == nil {
			t.Errorf("task %s: pod %s is admitted with Tekton's init containers as they are: the flag is not needed?", task, pod)
		}
		t.Logf("task %s: pod %s ran (namespace enforcing %s); restricted admits it with set-security-context; as made here: %v", task, pod, enforce, refused)
	}
}

// dryRun creates a pod of spec in namespace ns, server-side, as a dry
// run: the error is the API server's refusal.
func dryRun(c *cluster, ns string, spec corev1.PodSpec) error {
	spec.NodeName = ""
	pod := corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{GenerateName: "check-", Namespace: ns},
		Spec:       spec,
	}
	raw, _ := json.Marshal(pod)
	_, err := c.run(string(raw), "create", "--dry-run=server", "-f", "-")
	if err != nil {
		// Only the API server's words, not the command line.
		_, msg, _ := strings.Cut(err.Error(), "Error from server")
		return errors.New("Error from server" + msg)
	}
	return nil
}

// tektonInitSecurity is the securityContext Tekton's set-security-context
// flag gives its init containers on Linux (LinuxSecurityContext,
// pkg/pod/security_context_config.go, v1.15.0).
func tektonInitSecurity() *corev1.SecurityContext {
	return &corev1.SecurityContext{
		RunAsNonRoot: ptr.To(true), AllowPrivilegeEscalation: ptr.To(false),
		Capabilities:   &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
		SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
	}
}
