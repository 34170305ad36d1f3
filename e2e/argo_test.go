//go:build e2e

package e2e

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	"sigs.k8s.io/yaml"
)

// failAnnotation marks a pod that KWOK fails (scripts/e2e/stages.yaml).
const failAnnotation = "e2e.mlcube-compile.io/fail"

// TestE2EArgoOnRealNode compiles every example for Argo with the real
// node's image (compileForRealNode checks that the result is the golden
// file's but for images), runs it on the real node with Argo's real
// executor, and asserts what each step's container received against the
// golden file: argv with the parameters given at submit time, env with
// the secrets' values, uid, gid and fsGroup, the ConfigMap files, and that
// each step read what the steps before it wrote. Examples with MPI or Dask
// steps are left to the tests of those.
func TestE2EArgoOnRealNode(t *testing.T) {
	c := e2eCluster(t)
	t.Parallel()
	ran := 0
	for _, path := range goldenFiles(t, "argo") {
		name := strings.TrimSuffix(filepath.Base(path), ".yaml")
		t.Run(name, func(t *testing.T) {
			golden := goldenDocuments(t, path)
			want := decodeWorkflow(t, golden[len(golden)-1])
			if k := distributedKinds(want); len(k) > 0 {
				t.Skipf("not run here: it creates %v (TestE2EMPIOnRealNode runs resnet50's MPIJob, TestE2ETorchOnRealNode "+
					"torch-ddp's TrainJob)", k)
			}
			if medPerfExample(name) {
				t.Skip(medPerfNotRecorded)
			}
			if objectExample(name) {
				t.Skip("run by TestE2EArgoObjectStorage, with the bucket it reads")
			}
			if slices.Contains(cachedExamples, name) {
				t.Skip("run by TestE2EArgoCache and TestE2EArgoCacheClaim, each run more than once")
			}
			if draExample(name) {
				t.Skip(draNotRun)
			}
			docs := compileForRealNode(t, filepath.Join(repoRoot, "examples", name), "argo", realImage)
			ran++
			t.Parallel()
			r := c.newRealRun(t, name, docs, want)
			done := r.succeed(t, 5*time.Minute)
			dag := entryDAG(t, want)
			recs, pods := r.records(t), r.pods(t)
			for node, pod := range pods {
				// The exit handler's steps are skipped when the run
				// succeeds: no pod of it (common.GenerateOnExitNodeName).
				if strings.HasPrefix(node, done.Name+".onExit") {
					t.Errorf("the run succeeded and still ran %s (pod %s) of its exit handler", node, pod)
				}
			}
			byTask := map[string]record{}
			for _, task := range dag.Tasks {
				if n := taskNode(done, task.Name); n == nil || n.Phase != wfv1.NodeSucceeded {
					t.Errorf("task %s did not succeed:\n%s", task.Name, nodeSummary(done))
				}
				tmpl := want.GetTemplateByName(task.Template)
				if tmpl.Container == nil || !recorded(tmpl.Container) {
					continue
				}
				pod := pods[r.wf.Name+"."+task.Name]
				if pod == "" {
					pod = pods[r.wf.Name+"."+task.Name+"(0)"]
				}
				rec, ok := recs[pod]
				if !ok {
					t.Errorf("task %s (pod %q) left no record in the workspace", task.Name, pod)
					continue
				}
				checkRecord(t, "task "+task.Name, r.argoWant(t, task), rec)
				byTask[task.Name] = rec
			}
			checkFlow(t, func(task string) map[string]bool { return upstream(dag, task) }, byTask)
			t.Logf("%s: Succeeded on %s in %s; %d of %d tasks' containers checked", done.Name, realNode,
				done.Status.FinishedAt.Sub(done.Status.StartedAt.Time), len(byTask), len(dag.Tasks))
		})
	}
	if ran == 0 {
		t.Fatal("no golden workflow ran")
	}
}

// TestE2EPodFailureFailsWorkflow fails every pod of the first task that
// has a retry strategy in two-cube-pipeline: the workflow must fail after
// exactly limit+1 attempts spaced by the backoff, the tasks before it
// succeed, and no task after it run.
func TestE2EPodFailureFailsWorkflow(t *testing.T) {
	c := e2eCluster(t)
	t.Parallel()
	docs := goldenDocuments(t, filepath.Join(repoRoot, "testdata", "golden", "argo", "two-cube-pipeline.yaml"))
	wf := decodeWorkflow(t, docs[len(docs)-1])
	dag := entryDAG(t, wf)
	var failing *wfv1.Template
	var target string
	for _, task := range dag.Tasks {
		// GetTemplateByName returns a copy; the annotation must go on the original.
		i := slices.IndexFunc(wf.Spec.Templates, func(t wfv1.Template) bool { return t.Name == task.Template })
		if i >= 0 && wf.Spec.Templates[i].RetryStrategy != nil {
			failing, target = &wf.Spec.Templates[i], task.Name
			break
		}
	}
	if failing == nil {
		t.Fatal("no task with a retry strategy")
	}
	if failing.Metadata.Annotations == nil {
		failing.Metadata.Annotations = map[string]string{}
	}
	failing.Metadata.Annotations[failAnnotation] = "true"
	retry := failing.RetryStrategy
	limit := retry.Limit.IntValue()
	backoff, err := time.ParseDuration(retry.Backoff.Duration)
	if err != nil {
		t.Fatal(err)
	}

	done := c.submit(t, "two-cube-pipeline-fails", docs, wf, time.Duration(limit)*backoff+3*time.Minute)
	if done.Status.Phase != wfv1.WorkflowFailed {
		t.Fatalf("phase %s, want Failed\n%s", done.Status.Phase, nodeSummary(done))
	}
	attempts := retryAttempts(done, target)
	if len(attempts) != limit+1 {
		t.Errorf("%s ran %d times, want %d (retry limit %d)\n%s", target, len(attempts), limit+1, limit, nodeSummary(done))
	}
	for i, a := range attempts {
		if a.Phase != wfv1.NodeFailed {
			t.Errorf("attempt %d of %s: %s, want Failed", i, target, a.Phase)
		}
		// Argo's times have a resolution of a second.
		if i > 0 && a.StartedAt.Sub(attempts[i-1].FinishedAt.Time) < backoff-time.Second {
			t.Errorf("attempt %d of %s started %s after the one before ended; the backoff is %s", i, target,
				a.StartedAt.Sub(attempts[i-1].FinishedAt.Time), backoff)
		}
	}
	after := downstream(dag, target)
	for _, task := range dag.Tasks {
		n := taskNode(done, task.Name)
		switch {
		case task.Name == target:
		case after[task.Name]:
			if n != nil && n.Phase != wfv1.NodeOmitted {
				t.Errorf("task %s runs after the failed %s, but is %s, want Omitted or absent", task.Name, target, n.Phase)
			}
			if podsOf(done, task.Name) > 0 {
				t.Errorf("task %s has pods, but runs after the failed %s", task.Name, target)
			}
		default:
			if n == nil || n.Phase != wfv1.NodeSucceeded {
				t.Errorf("task %s does not depend on %s and should have succeeded\n%s", task.Name, target, nodeSummary(done))
			}
		}
	}
	t.Logf("%s: Failed after %d attempts of %s, downstream %v not run", done.Name, len(attempts), target,
		slices.Sorted(maps.Keys(after)))
}

// submit runs a workflow in a namespace of its own, e2e-NAME, so that runs
// leave nothing behind in the namespaces the dry-runs use. It sets up what
// a platform team would have (the namespace, service accounts, a fake GPU
// node with the labels the node selectors name, and the other documents of
// the file), gives every parameter without a value one, as `argo submit -p`
// would, creates the workflow, and waits for it to finish.
func (c *cluster) submit(t *testing.T, name string, docs []string, wf *wfv1.Workflow,
	timeout time.Duration) *wfv1.Workflow {
	t.Helper()
	ns, created := c.start(t, name, docs, wf)
	return c.wait(t, ns, created, timeout)
}

// start sets up namespace e2e-NAME as submit does and creates the
// workflow; it returns the namespace and the workflow's kubectl name.
func (c *cluster) start(t *testing.T, name string, docs []string, wf *wfv1.Workflow) (string, string) {
	t.Helper()
	ns := "e2e-" + name
	c.namespace(t, ns)
	wf.Namespace = ns
	for _, sa := range serviceAccounts(wf) {
		c.ensure(t, fmt.Sprintf("apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: %s, namespace: %s}\n", sa, ns))
	}
	c.fakeNode(t, "kwok-"+name, nodeLabels(t, wf))
	for _, doc := range docs[:len(docs)-1] {
		c.ensure(t, inNamespace(t, doc, ns))
	}
	for i, p := range wf.Spec.Arguments.Parameters {
		if p.Value == nil && p.ValueFrom == nil {
			wf.Spec.Arguments.Parameters[i].Value = wfv1.AnyStringPtr("e2e")
		}
	}
	manifest, err := yaml.Marshal(wf)
	if err != nil {
		t.Fatal(err)
	}
	return ns, strings.TrimSpace(c.must(t, string(manifest), "create", "-o", "name", "-f", "-"))
}

// wait waits for the workflow created to finish, and returns it.
func (c *cluster) wait(t *testing.T, ns, created string, timeout time.Duration) *wfv1.Workflow {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		var got wfv1.Workflow
		out := c.must(t, "", "-n", ns, "get", created, "-o", "json")
		if err := yaml.Unmarshal([]byte(out), &got); err != nil {
			t.Fatal(err)
		}
		if got.Status.Phase.Completed() {
			return &got
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s still %q after %s\n%s", created, got.Status.Phase, timeout, nodeSummary(&got))
		}
		time.Sleep(time.Second)
	}
}

// inNamespace moves a manifest to namespace ns.
func inNamespace(t *testing.T, manifest, ns string) string {
	t.Helper()
	var obj map[string]any
	if err := yaml.Unmarshal([]byte(manifest), &obj); err != nil {
		t.Fatal(err)
	}
	meta, _ := obj["metadata"].(map[string]any)
	if meta == nil {
		t.Fatalf("no metadata in\n%s", manifest)
	}
	meta["namespace"] = ns
	out, err := yaml.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// fakeNode registers a node that KWOK runs, with GPUs and the labels given.
func (c *cluster) fakeNode(t *testing.T, name string, labels map[string]string) {
	t.Helper()
	labels = maps.Clone(labels)
	labels["type"] = "kwok"
	labels["kubernetes.io/hostname"] = name
	resources := map[string]string{"cpu": "64", "memory": "512Gi", "nvidia.com/gpu": "8", "pods": "110"}
	node := map[string]any{
		"apiVersion": "v1",
		"kind":       "Node",
		"metadata": map[string]any{
			"name":        name,
			"labels":      labels,
			"annotations": map[string]string{"kwok.x-k8s.io/node": "fake"},
		},
		"status": map[string]any{"allocatable": resources, "capacity": resources},
	}
	manifest, err := yaml.Marshal(node)
	if err != nil {
		t.Fatal(err)
	}
	c.ensure(t, string(manifest))
}

func decodeWorkflow(t *testing.T, doc string) *wfv1.Workflow {
	t.Helper()
	var wf wfv1.Workflow
	if err := yaml.UnmarshalStrict([]byte(doc), &wf); err != nil {
		t.Fatal(err)
	}
	return &wf
}

func entryDAG(t *testing.T, wf *wfv1.Workflow) *wfv1.DAGTemplate {
	t.Helper()
	tmpl := wf.GetTemplateByName(wf.Spec.Entrypoint)
	if tmpl == nil || tmpl.DAG == nil {
		t.Fatalf("entrypoint %q is not a DAG", wf.Spec.Entrypoint)
	}
	return tmpl.DAG
}

func serviceAccounts(wf *wfv1.Workflow) []string {
	names := []string{wf.Spec.ServiceAccountName}
	for _, tmpl := range wf.Spec.Templates {
		names = append(names, tmpl.ServiceAccountName)
	}
	slices.Sort(names)
	return slices.DeleteFunc(slices.Compact(names), func(s string) bool { return s == "" })
}

// nodeLabels merges the workflow's node selectors: the labels one node
// needs to run every step.
func nodeLabels(t *testing.T, wf *wfv1.Workflow) map[string]string {
	t.Helper()
	labels := maps.Clone(wf.Spec.NodeSelector)
	if labels == nil {
		labels = map[string]string{}
	}
	for _, tmpl := range wf.Spec.Templates {
		for k, v := range tmpl.NodeSelector {
			if old, ok := labels[k]; ok && old != v {
				t.Fatalf("node selectors disagree on %s: %s and %s", k, old, v)
			}
			labels[k] = v
		}
	}
	return labels
}

// taskNode is the status node of a DAG task: its pod, the retry node over
// its attempts, or the node that says it was omitted.
func taskNode(wf *wfv1.Workflow, task string) *wfv1.NodeStatus {
	for _, n := range wf.Status.Nodes {
		if n.DisplayName == task {
			return &n
		}
	}
	return nil
}

// retryAttempts are the pods of a retried task, in the order they ran.
func retryAttempts(wf *wfv1.Workflow, task string) []wfv1.NodeStatus {
	var pods []wfv1.NodeStatus
	for _, n := range wf.Status.Nodes {
		if n.Type == wfv1.NodeTypePod && strings.HasPrefix(n.DisplayName, task+"(") {
			pods = append(pods, n)
		}
	}
	sort.Slice(pods, func(i, j int) bool { return pods[i].DisplayName < pods[j].DisplayName })
	return pods
}

// podsOf counts the pods a task ran.
func podsOf(wf *wfv1.Workflow, task string) int {
	n := 0
	for _, node := range wf.Status.Nodes {
		if node.Type == wfv1.NodeTypePod && (node.DisplayName == task || strings.HasPrefix(node.DisplayName, task+"(")) {
			n++
		}
	}
	return n
}

// downstream is every task that depends, directly or not, on task.
func downstream(dag *wfv1.DAGTemplate, task string) map[string]bool {
	after := map[string]bool{}
	for changed := true; changed; {
		changed = false
		for _, t := range dag.Tasks {
			if after[t.Name] {
				continue
			}
			for _, dep := range t.Dependencies {
				if dep == task || after[dep] {
					after[t.Name], changed = true, true
					break
				}
			}
		}
	}
	return after
}

// nodeSummary lists a workflow's status nodes, for a failure message.
func nodeSummary(wf *wfv1.Workflow) string {
	var lines []string
	for _, n := range wf.Status.Nodes {
		lines = append(lines, fmt.Sprintf("  %-30s %-8s %-10s %s", n.DisplayName, n.Type, n.Phase, n.Message))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}
