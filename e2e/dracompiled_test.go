//go:build e2e

package e2e

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"sigs.k8s.io/yaml"
)

// draCompiled is the example whose GPU step claims its GPU by DRA, with
// the DeviceClass of the real node's driver (draDriver).
const draCompiled = "dra-gpu"

// examples/dra-gpu asks for its GPU by DRA, with the DeviceClass of the
// real node's driver. The three tests below run what the compiler makes
// of it on the real node, on each backend the way it asks, and each
// train container must record the device the driver injected for the
// claim it was given, one GPU of the real node's pool (checkDRA).

// TestE2EDRAArgoOnRealNode: the run's first task applies the
// ResourceClaimTemplate, and the train pod claims from it through
// podSpecPatch (Argo has no typed field), which the workflow controller
// merges into the pod (processPodSpecPatch, then util.ApplyPodSpecPatch,
// in workflow/controller/workflowpod.go of argo-workflows v3.7.18).
func TestE2EDRAArgoOnRealNode(t *testing.T) {
	c := e2eCluster(t)
	t.Parallel()
	r := c.realRunOf(t, draCompiled, "dra-gpu")
	watch := c.watchClaims(t, r.ns)
	done := r.succeed(t, 4*time.Minute)
	r.checkDRA(t, r.pods(t)[done.Name+".train"], "gpu", watch)
	t.Logf("%s: Succeeded in %s", done.Name, done.Status.FinishedAt.Sub(done.Status.StartedAt.Time))
}

// TestE2EDRAJobOnRealNode: the Job's pod template claims from the
// ResourceClaimTemplate, typed.
func TestE2EDRAJobOnRealNode(t *testing.T) {
	c := e2eCluster(t)
	t.Parallel()
	r, job := c.draJobRun(t)
	watch := c.watchClaims(t, r.ns)
	c.must(t, job, "create", "-f", "-")
	waitFor(t, 4*time.Minute, func() string {
		return c.jsonPath(t, r.ns, "job/"+draCompiled,
			`{.status.conditions[?(@.type=="Complete")].status}{.status.conditions[?(@.type=="Failed")].message}`)
	}, "True")
	pod := c.must(t, "", "-n", r.ns, "get", "pods", "-l", "batch.kubernetes.io/job-name="+draCompiled, "-o",
		"jsonpath={.items[0].metadata.name}")
	r.checkDRA(t, strings.TrimSpace(pod), "gpu", watch)
}

// TestE2EDRATektonOnRealNode: the task asks for the class's
// extendedResourceName as a limit (a Tekton task's pod cannot carry
// claims), and the scheduler makes the pod's claim.
func TestE2EDRATektonOnRealNode(t *testing.T) {
	c := e2eCluster(t)
	t.Parallel()
	r := c.tektonRunOf(t, draCompiled, "dra-gpu")
	watch := c.watchClaims(t, r.ns)
	r.runSucceeded(t, 4*time.Minute)
	r.checkDRA(t, r.tektonPods(t)["train"], draExtendedResource, watch)
}

// checkDRA checks that pod's claim name (draExtendedResource: the claim
// the scheduler made for its extended resources) was allocated one
// device of the real node's driver, and that the device, and nothing
// else, is what the driver injected into the container's recorded env.
func (r *realRun) checkDRA(t *testing.T, pod, name string, watch *claimWatch) {
	t.Helper()
	var p corev1.Pod
	if err := json.Unmarshal([]byte(r.c.must(t, "", "-n", r.ns, "get", "pod", pod, "-o", "json")), &p); err != nil {
		t.Fatal(err)
	}
	claims := podClaims(p, watch.stop(t))
	rec, ok := r.records(t)[pod]
	if !ok {
		t.Fatalf("pod %s left no record in the workspace", pod)
	}
	claim, device := oneDevice(t, claims, name, injected(rec.Env))
	t.Logf("pod %s: claim %s allocated %s of %s; the container saw it", pod, claim.Name, device, realNode)
}

// injected is, of a recorded env, the lines draEnvScript prints.
func injected(env map[string]string) string {
	var lines []string
	for k, v := range env {
		if strings.HasPrefix(k, "GPU_DEVICE_") || k == "DRA_RESOURCE_DRIVER_NAME" || k == "KUBERNETES_NODE_NAME" {
			lines = append(lines, k+"="+v)
		}
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// draJobRun prepares namespace e2e-job-dra-gpu for examples/dra-gpu's
// Job (--backend job) as newRealRun does for a workflow: its service
// account, its claim on a local volume, its ResourceClaimTemplate, the
// node's GPU label; and returns the Job, named draCompiled, pinned to the
// real node with cpu and memory shrunk, and otherwise as compiled.
func (c *cluster) draJobRun(t *testing.T) (*realRun, string) {
	t.Helper()
	docs := compileForRealNode(t, filepath.Join(repoRoot, "examples", draCompiled), "job", realImage)
	r := &realRun{c: c, ns: "e2e-job-" + draCompiled, volumes: map[string]string{}}
	c.namespace(t, r.ns)
	c.must(t, "", "-n", r.ns, "delete", "job", draCompiled, "--ignore-not-found", "--wait", "--cascade=foreground")
	var job batchv1.Job
	for _, doc := range docs {
		var meta struct{ Kind string }
		if err := yaml.Unmarshal([]byte(doc), &meta); err != nil {
			t.Fatal(err)
		}
		if meta.Kind != "Job" {
			c.ensure(t, inNamespace(t, doc, r.ns))
			continue
		}
		if err := yaml.UnmarshalStrict([]byte(doc), &job); err != nil {
			t.Fatal(err)
		}
	}
	spec := &job.Spec.Template.Spec
	c.ensure(t, "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: "+spec.ServiceAccountName+
		", namespace: "+r.ns+"}\n")
	for _, v := range spec.Volumes {
		if v.PersistentVolumeClaim != nil {
			r.claim(t, v.PersistentVolumeClaim.ClaimName, corev1.PersistentVolumeClaimSpec{}, claimMake)
		}
	}
	args := []string{"label", "node", realNode, "--overwrite"}
	for k, v := range spec.NodeSelector {
		args = append(args, k+"="+v)
	}
	c.must(t, "", args...)
	job.Namespace, job.Name, job.GenerateName = r.ns, draCompiled, ""
	spec.NodeSelector["kubernetes.io/hostname"] = realNode
	spec.Tolerations = append(spec.Tolerations,
		corev1.Toleration{Key: realNodeTaint, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule})
	for i := range spec.Containers {
		shrink(&spec.Containers[i].Resources)
	}
	out, err := json.Marshal(job)
	if err != nil {
		t.Fatal(err)
	}
	return r, string(out)
}

// podClaims is, of the allocated claims seen, each that met one of pod's
// claims, by the pod's name for it, or draExtendedResource for the claim
// the scheduler made for its extended resources.
func podClaims(pod corev1.Pod, allocated map[string]resourcev1.ResourceClaim) map[string]resourcev1.ResourceClaim {
	claims := map[string]resourcev1.ResourceClaim{}
	for _, s := range pod.Status.ResourceClaimStatuses {
		if s.ResourceClaimName == nil {
			continue
		}
		if claim, ok := allocated[*s.ResourceClaimName]; ok {
			claims[s.Name] = claim
		}
	}
	if s := pod.Status.ExtendedResourceClaimStatus; s != nil {
		if claim, ok := allocated[s.ResourceClaimName]; ok {
			claims[draExtendedResource] = claim
		}
	}
	return claims
}
