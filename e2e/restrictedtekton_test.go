//go:build e2e

package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestE2ETektonRestricted runs examples on Tekton in namespaces whose
// Pod Security admission enforces restricted, compiled with podSecurity:
// restricted and tekton.setSecurityContext, as TestE2ERealNodeRestricted
// does on Argo (issue 49, points 5 and 14), the same examples: the suite's
// image given a user by the platform (in the bucket, and on a claim with
// an fsGroup),
// the image that runs as its own user with no user given, and that image
// with runAsNonRoot alone in a namespace that enforces nothing. The
// suite's Tekton runs with its set-security-context flag on and its own
// containers as uid 65532 (scripts/e2e/tekton.sh), as Tekton's images
// do: the flag gives the containers Tekton adds (prepare, place-scripts)
// the restricted securityContext (pkg/pod/security_context_config.go).
// Each pod of a restricted run, with those containers' securityContext
// (and the affinity assistant's, which the flag sets too) taken away, is
// refused by the API server's server-side dry run: why
// the compiler refuses restricted on Tekton without the setting (MLC361).
func TestE2ETektonRestricted(t *testing.T) {
	t.Parallel()
	c, s := e2eCluster(t), e2eObjectStore(t)
	seedBucket(t, s)
	if flag := c.jsonPath(t, "tekton-pipelines", "configmap/feature-flags",
		"{.data.set-security-context}"); flag != "true" {
		t.Fatalf("Tekton's set-security-context is %q: scripts/e2e/tekton.sh turns it on", flag)
	}
	for _, run := range lockedRuns(t, tektonImage, map[string]any{"tekton": map[string]any{"setSecurityContext": true}}) {
		t.Run(run.name, func(t *testing.T) {
			t.Parallel()
			docs := compileWith(t, run.example, "tekton", run.image, run.platform)
			r := c.newTektonRun(t, run.name, docs, decodePipelineRun(t, docs[len(docs)-1]))
			s.credentials(t, c, r.ns)
			enforce := run.enforce(t, c, r.ns)
			done := r.runSucceeded(t, 8*time.Minute)
			users := map[string]bool{}
			for task, pod := range r.tektonPods(t) {
				out, err := c.run("", "-n", r.ns, "get", "pod", pod, "-o", "json")
				if err != nil && strings.HasPrefix(pod, "affinity-assistant-") {
					// Tekton deletes the assistant's StatefulSet once the run is
					// done (affinity_assistant.go, cleanupAffinityAssistantsAndPVCs).
					continue
				}
				var p corev1.Pod
				if err := errors.Join(err, json.Unmarshal([]byte(out), &p)); err != nil {
					t.Fatal(err)
				}
				for _, ctr := range append(p.Spec.InitContainers, p.Spec.Containers...) {
					users[fmt.Sprintf("%s=%v", ctr.Name, userOf(ctr.SecurityContext))] = true
				}
				if enforce != "restricted" {
					continue
				}
				added := p.Spec.InitContainers
				if strings.HasPrefix(pod, "affinity-assistant-") {
					added = p.Spec.Containers
				}
				for i := range added {
					added[i].SecurityContext = nil
				}
				if err := dryRun(c, r.ns, p.Spec); err == nil {
					t.Errorf("task %s: pod %s is admitted with Tekton's init containers as they are without set-security-context: "+
						"the flag is not needed?", task, pod)
				}
			}
			t.Logf("%s (%v, %s, enforce %s): Succeeded in %s; containers=runAsUser: %s",
				run.name, filepath.Base(run.example), run.image, enforce,
				done.Status.CompletionTime.Sub(done.Status.StartTime.Time), strings.Join(slices.Sorted(maps.Keys(users)), " "))
		})
	}
}

// userOf is the runAsUser of sc, or "" when it names none.
func userOf(sc *corev1.SecurityContext) string {
	if sc == nil || sc.RunAsUser == nil {
		return ""
	}
	return fmt.Sprint(*sc.RunAsUser)
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
