//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// torchExample is the example whose torch step compiles to a TrainJob.
const torchExample = "torch-ddp"

// needTorchExample skips a test while examples/torch-ddp, or its golden
// file for backend, does not exist yet.
func needTorchExample(t *testing.T, backend string) {
	t.Helper()
	for _, p := range []string{
		filepath.Join(repoRoot, "examples", torchExample),
		filepath.Join(repoRoot, "testdata", "golden", backend, torchExample+".yaml"),
	} {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("skipping: %s does not exist yet (the compiler's torch step, which makes a TrainJob)", p)
		}
	}
}

// compiledTrainJob is the part of a compiled TrainJob the tests read.
type compiledTrainJob struct {
	Spec struct {
		Trainer struct {
			Command, Args  []string
			Env            []corev1.EnvVar
			NumNodes       *int
			NumProcPerNode *int
		}
	}
}

// torchWant is what each rank of a compiled TrainJob must receive, and
// its nodes and ranks per node. Its command is torchrun, whose options
// come in --name=value form before the script; a rank's program gets
// the script's argv with the image's python (the recorder) and its -u.
func (r *realRun) torchWant(t *testing.T, manifest string) (want, int, int) {
	t.Helper()
	var job compiledTrainJob
	if err := yaml.Unmarshal([]byte(manifest), &job); err != nil {
		t.Fatal(err)
	}
	tr := job.Spec.Trainer
	if len(tr.Command) == 0 || tr.Command[0] != "torchrun" {
		t.Fatalf("the TrainJob's command %q is not torchrun", tr.Command)
	}
	script := tr.Command[1:]
	for len(script) > 0 && strings.HasPrefix(script[0], "-") {
		script = script[1:]
	}
	argv := append([]string{"/usr/local/bin/python", "-u"}, slices.Concat(script, tr.Args)...)
	nodes, procs := 1, 1
	if tr.NumNodes != nil {
		nodes = *tr.NumNodes
	}
	if tr.NumProcPerNode != nil {
		procs = *tr.NumProcPerNode
	}
	return want{argv: argv, env: r.wantEnv(tr.Env, func(s string) string { return s }, nil)}, nodes, procs
}

// TestE2ETorchOnRealNode runs torch-ddp's Argo workflow on the real node:
// Argo's executor creates the compiled TrainJob, Trainer and JobSet run
// its trainer nodes, and their ranks join gloo's all_reduce under
// torchrun; the ranks are checked as TestE2ETrainJobTorchOnRealNode
// checks a hand-written TrainJob's, against the golden file's TrainJob.
func TestE2ETorchOnRealNode(t *testing.T) {
	c := e2eCluster(t)
	needTorchExample(t, "argo")
	t.Parallel()
	runTorchOnRealNode(t, c, c.realRunOf(t, torchExample, "torch"))
}

// TestE2ETorchOnRealNodeWithRBAC runs torch-ddp's Argo workflow compiled
// with --emit-rbac, in the account, Role and token Secret it makes: the
// Workflow mounts no token, and the step that creates and waits on the
// TrainJob runs kubectl with its account's token all the same.
func TestE2ETorchOnRealNodeWithRBAC(t *testing.T) {
	c := e2eCluster(t)
	needTorchExample(t, "argo")
	t.Parallel()
	const name = "torch-rbac"
	golden := goldenDocuments(t, filepath.Join(repoRoot, "testdata", "golden", "argo", torchExample+".yaml"))
	docs, _ := realNodeCompile(t, filepath.Join(repoRoot, "examples", torchExample), "argo", realImage,
		golden, "--emit-rbac")
	r := c.newRealRun(t, name, subjectsIn(t, docs, "e2e-real-"+name), decodeWorkflow(t, golden[len(golden)-1]))
	if m := r.wf.Spec.AutomountServiceAccountToken; m == nil || *m || r.wf.Spec.Executor == nil {
		t.Fatalf("compiled with --emit-rbac, the Workflow mounts its token (%v) or names no executor account", m)
	}
	runTorchOnRealNode(t, c, r)
}

// subjectsIn moves the subjects of the RoleBindings among docs to
// namespace ns, where newRealRun moves the run and its account.
func subjectsIn(t *testing.T, docs []string, ns string) []string {
	t.Helper()
	out := slices.Clone(docs)
	for i, doc := range out {
		var obj map[string]any
		if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
			t.Fatal(err)
		}
		subjects, _ := obj["subjects"].([]any)
		if obj["kind"] != "RoleBinding" || len(subjects) == 0 {
			continue
		}
		for _, s := range subjects {
			s.(map[string]any)["namespace"] = ns
		}
		data, err := yaml.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = string(data)
	}
	return out
}

// runTorchOnRealNode runs r, a compile of torch-ddp, and checks its
// ranks against the golden file's TrainJob.
func runTorchOnRealNode(t *testing.T, c *cluster, r *realRun) {
	t.Helper()
	manifest := argoCreated(t, r.wf, "TrainJob")
	*manifest = trainJobOnRealNode(t, *manifest, r.ns)
	created := r.create(t)
	done := c.wait(t, r.ns, created, 6*time.Minute)
	if done.Status.Phase != wfv1.WorkflowSucceeded {
		t.Fatalf("phase %s: %s\n%s\n%s", done.Status.Phase, done.Status.Message, nodeSummary(done),
			c.must(t, "", "-n", r.ns, "get", "trainjobs,jobsets,pods", "-o", "wide"))
	}
	w, nodes, procs := r.torchWant(t, asSubmitted(*argoCreated(t, r.golden, "TrainJob")))
	hosts := checkTorchRanks(t, r, w, nodes, procs)
	t.Logf("%s: Succeeded in %s; %d ranks on %v", done.Name, done.Status.FinishedAt.Sub(done.Status.StartedAt.Time),
		nodes*procs, hosts)
}

// TestE2ETektonTorchOnRealNode runs torch-ddp's PipelineRun on the real
// node with Tekton's controller: the step's script creates the TrainJob
// with kubectl and waits on it; the ranks are checked as
// TestE2ETorchOnRealNode checks them.
func TestE2ETektonTorchOnRealNode(t *testing.T) {
	c := e2eCluster(t)
	needTorchExample(t, "tekton")
	t.Parallel()
	r := c.tektonRunOf(t, torchExample, "torch")
	manifest := tektonCreated(t, r.pr, "TrainJob")
	*manifest = trainJobOnRealNode(t, *manifest, r.ns)
	done := r.runSucceeded(t, 6*time.Minute, "taskruns,trainjobs,jobsets,pods")
	w, nodes, procs := r.torchWant(t, *tektonCreated(t, r.golden, "TrainJob"))
	hosts := checkTorchRanks(t, r.realRun, w, nodes, procs)
	t.Logf("%s: Succeeded; %d ranks on %v", done.Name, nodes*procs, hosts)
}
