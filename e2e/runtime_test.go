//go:build e2e

package e2e

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// runResourcesOnHost marks the workflow's resource steps for hostExecutor
// (test-side metadata only: the steps are the golden file's).
func runResourcesOnHost(wf *wfv1.Workflow) {
	for i := range wf.Spec.Templates {
		tmpl := &wf.Spec.Templates[i]
		if tmpl.Resource != nil {
			if tmpl.Metadata.Annotations == nil {
				tmpl.Metadata.Annotations = map[string]string{}
			}
			tmpl.Metadata.Annotations[executorAnnotation] = "host"
		}
	}
}

// TestE2EArgoCreatesItsConfigMap submits only the Workflow of
// single-gpu-task, as `argo submit wf.yaml` does, and checks that the run
// made the ConfigMap its steps read: by its first task, run by Argo's real
// executor, with the golden file's data, owned by the Workflow.
func TestE2EArgoCreatesItsConfigMap(t *testing.T) {
	c := e2eCluster(t)
	docs := goldenDocuments(t, filepath.Join(repoRoot, "testdata", "golden", "argo", "single-gpu-task.yaml"))
	if len(docs) != 1 {
		t.Fatalf("the Argo output is %d documents; `argo submit` reads only the Workflow", len(docs))
	}
	wf := decodeWorkflow(t, docs[0])
	var want corev1.ConfigMap
	for _, tmpl := range wf.Spec.Templates {
		if tmpl.Resource != nil && strings.Contains(tmpl.Resource.Manifest, "kind: ConfigMap") {
			if err := yaml.Unmarshal([]byte(tmpl.Resource.Manifest), &want); err != nil {
				t.Fatal(err)
			}
		}
	}
	for i := range wf.Spec.Templates {
		if r := wf.Spec.Templates[i].Resource; r != nil && r.Manifest != "" {
			r.Manifest = inNamespace(t, r.Manifest, "e2e-configmap")
		}
	}
	// What an earlier run of this test on the cluster made goes first (make
	// e2e runs it against Argo v3.7, then 4): the ConfigMap must be this run's.
	c.run("", "-n", "e2e-configmap", "delete", "workflows", "--all", "--wait")
	c.run("", "-n", "e2e-configmap", "delete", "configmap", want.Name, "--ignore-not-found", "--wait")
	runResourcesOnHost(wf)
	h := startHostExecutor(t, c, "e2e-configmap")
	done := c.submit(t, "configmap", docs, wf, 3*time.Minute)
	if done.Status.Phase != wfv1.WorkflowSucceeded {
		t.Fatalf("phase %s: %s\n%s\n%s", done.Status.Phase, done.Status.Message, nodeSummary(done), h.log())
	}
	var got corev1.ConfigMap
	if err := json.Unmarshal([]byte(c.must(t, "", "-n", "e2e-configmap", "get", "configmap", want.Name, "-o", "json")),
		&got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want.Data, got.Data); diff != "" {
		t.Errorf("ConfigMap %s: data (-want +got):\n%s", want.Name, diff)
	}
	if o := got.OwnerReferences; len(o) != 1 || o[0].Kind != "Workflow" || o[0].Name != done.Name || o[0].UID != done.UID {
		t.Errorf("ConfigMap %s is owned by %+v, want the Workflow %s", want.Name, o, done.Name)
	}
	t.Logf("%s: Succeeded; ConfigMap %s created by the run, owned by it, %d keys", done.Name, want.Name, len(got.Data))
	// A second run with the same configs shares the ConfigMap and becomes
	// an owner too, so deleting either run leaves it to the other.
	again := c.submit(t, "configmap", docs, wf, 3*time.Minute)
	if again.Status.Phase != wfv1.WorkflowSucceeded {
		t.Fatalf("second run: phase %s: %s\n%s", again.Status.Phase, again.Status.Message, h.log())
	}
	if err := json.Unmarshal([]byte(c.must(t, "", "-n", "e2e-configmap", "get", "configmap", want.Name, "-o", "json")),
		&got); err != nil {
		t.Fatal(err)
	}
	var owners []string
	for _, o := range got.OwnerReferences {
		owners = append(owners, o.Name)
	}
	if len(owners) != 2 || !slices.Contains(owners, done.Name) || !slices.Contains(owners, again.Name) {
		t.Errorf("after a second run, ConfigMap %s is owned by %v, want both runs", want.Name, owners)
	}
	t.Logf("%s: Succeeded; ConfigMap %s owned by %v\n%s", again.Name, want.Name, owners, h.log())
}

// TestE2EStopDeletesJobs stops resnet50's Workflow (spec.shutdown: Stop,
// as `argo stop` does) while its MPIJob runs, with the launcher held
// running, and checks that no MPIJob of the run is left behind. The
// control run, with the exit handler removed, shows the MPIJob would stay.
func TestE2EStopDeletesJobs(t *testing.T) {
	c := e2eCluster(t)
	for _, tc := range []struct {
		name       string
		exitHander bool
	}{{"stop", true}, {"stop-control", false}} {
		t.Run(tc.name, func(t *testing.T) {
			docs := goldenDocuments(t, filepath.Join(repoRoot, "testdata", "golden", "argo", "resnet50-multinode.yaml"))
			wf := decodeWorkflow(t, docs[len(docs)-1])
			ns := "e2e-" + tc.name
			for i := range wf.Spec.Templates {
				if r := wf.Spec.Templates[i].Resource; r != nil && r.Action == "create" {
					r.Manifest = holdLauncher(t, inNamespace(t, r.Manifest, ns))
				}
			}
			if !tc.exitHander {
				wf.Spec.OnExit = ""
			}
			runResourcesOnHost(wf)
			// The MPIJob an earlier control run left running (make e2e runs
			// this test against Argo v3.7, then 4) goes first, with its pods.
			c.run("", "-n", ns, "delete", "workflows,mpijobs", "--all", "--wait")
			c.run("", "-n", ns, "delete", "pods", "--all", "--wait")
			h := startHostExecutor(t, c, ns)
			ns, created := c.start(t, tc.name, docs, wf)
			name := strings.TrimPrefix(created, "workflow.argoproj.io/")
			selector := "mlcube-compile/run=" + name
			launcher := waitFor(t, 2*time.Minute, func() string {
				out, _ := c.run("", "-n", ns, "get", "pods", "-l", "training.kubeflow.org/job-role=launcher", "-o",
					"jsonpath={.items[*].status.phase}")
				return out
			}, "Running")
			jobs := c.must(t, "", "-n", ns, "get", "mpijobs", "-l", selector, "-o", "name")
			t.Logf("%s: MPIJob %s running (launcher %s); stopping", name, strings.TrimSpace(jobs), launcher)
			c.must(t, `{"spec":{"shutdown":"Stop"}}`, "-n", ns, "patch", created, "--type=merge", "--patch-file=/dev/stdin")
			h.terminate()
			done := c.wait(t, ns, created, 2*time.Minute)
			left := waitFor(t, time.Minute, func() string {
				out, _ := c.run("", "-n", ns, "get", "mpijobs", "-l", selector, "-o", "name")
				if strings.TrimSpace(out) == "" {
					return "none"
				}
				return strings.TrimSpace(out)
			}, map[bool]string{true: "none", false: strings.TrimSpace(jobs)}[tc.exitHander])
			t.Logf("%s: %s (%s); MPIJobs of the run left: %s\n%s", name, done.Status.Phase, done.Status.Message, left, h.log())
		})
	}
}

// holdLauncher annotates the MPIJob's launcher pods so that KWOK keeps them
// running: the job holds its GPUs until something deletes it.
func holdLauncher(t *testing.T, manifest string) string {
	t.Helper()
	var job map[string]any
	if err := yaml.Unmarshal([]byte(manifest), &job); err != nil {
		t.Fatal(err)
	}
	launcher := job["spec"].(map[string]any)["mpiReplicaSpecs"].(map[string]any)["Launcher"].(map[string]any)
	meta := launcher["template"].(map[string]any)["metadata"].(map[string]any)
	meta["annotations"] = map[string]any{"e2e.mlcube-compile.io/hold": "true"}
	out, err := yaml.Marshal(job)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// waitFor polls get until it returns want, failing after timeout.
func waitFor(t *testing.T, timeout time.Duration, get func() string, want string) string {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		got := get()
		if got == want {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %s: %q, want %q", timeout, got, want)
		}
		time.Sleep(500 * time.Millisecond)
	}
}
