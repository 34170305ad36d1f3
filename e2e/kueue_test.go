//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
)

// Kueue (scripts/e2e/kueue.sh) manages the namespaces labelled
// kueueLabel=true. A workload with the label kueue.x-k8s.io/queue-name
// is admitted by Kueue when its ClusterQueue has quota for all of it;
// a suspended Job or MPIJob is then unsuspended
// (pkg/controller/jobframework/reconciler.go in Kueue v0.19.2), and a
// pod loses the scheduling gate kueue.x-k8s.io/admission that Kueue's
// pod webhook gave it (pkg/controller/jobs/pod/pod_webhook.go).
const kueueLabel = "e2e.mlcube-compile.io/kueue"

// kueueQueueLabel is the label the compiler writes and Kueue reads
// (pkg/controller/constants/constants.go).
const kueueQueueLabel = "kueue.x-k8s.io/queue-name"

// kueueStripLabel, when E2E_KUEUE_STRIP_LABEL is set, removes the queue
// label from what the Kueue tests submit: each must then fail, which
// shows that the label, and nothing else, puts the work under Kueue.
var kueueStripLabel = os.Getenv("E2E_KUEUE_STRIP_LABEL") != ""

// kueueQueues makes ns a namespace Kueue manages, with a ClusterQueue of
// its own whose quota holds gpus GPUs (and plenty of cpu and memory), a
// LocalQueue of each name in queues pointing at it, and the priority
// classes examples/shared-gpu-queue names.
func (c *cluster) kueueQueues(t *testing.T, ns string, gpus int, queues ...string) {
	t.Helper()
	c.kueueQueuesOf(t, ns, "nvidia.com/gpu", gpus, queues...)
}

// kueueQueuesOf is kueueQueues with the GPUs' quota held by the resource
// gpu, such as the name a DRA device class's limit is counted as.
func (c *cluster) kueueQueuesOf(t *testing.T, ns, gpu string, gpus int, queues ...string) {
	t.Helper()
	c.namespace(t, ns)
	c.must(t, "", "label", "namespace", ns, kueueLabel+"=true", "--overwrite")
	docs := []string{
		"apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: e2e-default}\n",
		fmt.Sprintf(`apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: %s}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu, memory, %s]
    flavors:
    - name: e2e-default
      resources:
      - {name: cpu, nominalQuota: "64"}
      - {name: memory, nominalQuota: 512Gi}
      - {name: %s, nominalQuota: %d}
`, ns, gpu, gpu, gpus),
	}
	for _, q := range queues {
		docs = append(docs, fmt.Sprintf("apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\n"+
			"metadata: {name: %s, namespace: %s}\nspec: {clusterQueue: %s}\n", q, ns, ns))
	}
	for name, value := range map[string]int{"team-a-normal": 100, "team-a-urgent": 1000} {
		docs = append(docs, fmt.Sprintf("apiVersion: kueue.x-k8s.io/v1beta2\nkind: WorkloadPriorityClass\n"+
			"metadata: {name: %s}\nvalue: %d\n", name, value))
	}
	for name, value := range map[string]int{"batch-low": 100, "batch-high": 1000} {
		docs = append(docs, fmt.Sprintf("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: %s}\n"+
			"value: %d\n", name, value))
	}
	for _, d := range docs {
		c.ensure(t, d)
	}
}

// workload is what the tests read of a Kueue Workload.
type workload struct {
	Metadata struct {
		Name            string
		OwnerReferences []struct{ Kind, Name string }
	}
	Status struct {
		Conditions []struct {
			Type, Status       string
			LastTransitionTime time.Time
		}
	}
}

// at returns when condition typ last became True, or the zero time.
func (w workload) at(typ string) time.Time {
	for _, c := range w.Status.Conditions {
		if c.Type == typ && c.Status == "True" {
			return c.LastTransitionTime
		}
	}
	return time.Time{}
}

// workloads returns ns's Workloads by the kind/name of their owner.
func (c *cluster) workloads(t *testing.T, ns string) map[string]workload {
	t.Helper()
	var list struct{ Items []workload }
	if err := json.Unmarshal([]byte(c.must(t, "", "-n", ns, "get", "workloads.kueue.x-k8s.io", "-o", "json")),
		&list); err != nil {
		t.Fatal(err)
	}
	byOwner := map[string]workload{}
	for _, w := range list.Items {
		for _, o := range w.Metadata.OwnerReferences {
			byOwner[o.Kind+"/"+o.Name] = w
		}
	}
	return byOwner
}

// queued returns a manifest's object named name in ns, with the hold
// annotation on the pod template at path (map keys, and list indices)
// when hold is set, and without the queue label when kueueStripLabel is.
func queued(t *testing.T, manifest, ns, name string, hold bool, path ...string) string {
	t.Helper()
	var obj map[string]any
	if err := yaml.Unmarshal([]byte(inNamespace(t, manifest, ns)), &obj); err != nil {
		t.Fatal(err)
	}
	meta := obj["metadata"].(map[string]any)
	delete(meta, "generateName")
	meta["name"] = name
	if labels, _ := meta["labels"].(map[string]any); kueueStripLabel {
		delete(labels, kueueQueueLabel)
	} else if labels[kueueQueueLabel] == nil {
		t.Fatalf("%s has no %s label", name, kueueQueueLabel)
	}
	if hold {
		var at any = obj
		for _, k := range path {
			if list, ok := at.([]any); ok {
				i, err := strconv.Atoi(k)
				if err != nil || i >= len(list) {
					t.Fatalf("%s: no item %s in a list of %d", name, k, len(list))
				}
				at = list[i]
			} else {
				at = at.(map[string]any)[k]
			}
		}
		tmpl := at.(map[string]any)
		tmplMeta, _ := tmpl["metadata"].(map[string]any)
		if tmplMeta == nil {
			tmplMeta = map[string]any{}
			tmpl["metadata"] = tmplMeta
		}
		tmplMeta["annotations"] = map[string]any{"e2e.mlcube-compile.io/hold": "true"}
	}
	out, err := yaml.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// timeline is when each step of an admission happened, for the log.
type timeline []struct {
	at   time.Time
	what string
}

func (tl *timeline) add(at time.Time, format string, args ...any) {
	*tl = append(*tl, struct {
		at   time.Time
		what string
	}{at, fmt.Sprintf(format, args...)})
}

func (tl timeline) String() string {
	slices.SortStableFunc(tl, func(a, b struct {
		at   time.Time
		what string
	}) int {
		return a.at.Compare(b.at)
	})
	var b strings.Builder
	for _, e := range tl {
		fmt.Fprintf(&b, "  +%4.0fs %s\n", e.at.Sub(tl[0].at).Seconds(), e.what)
	}
	return b.String()
}

// sharedGPUQueue is the absolute path of examples/shared-gpu-queue.
func sharedGPUQueue(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join(repoRoot, "examples", "shared-gpu-queue"))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}
