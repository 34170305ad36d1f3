//go:build e2e

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// objDataProgram stands in for the three tasks of bucket-pipeline's cube
// (its args: the task, then --name=path), as a real program would
// behave: it writes into its output folders and beside its output files
// and never makes them (MLCube makes them first). prepare writes a
// partial output and fails on its first attempt (MLCUBE_E2E_ATTEMPT 0),
// and writes data.txt alone on the next; train leaves its output folder
// empty; evaluate writes, as its metrics, the files it was given and
// what data.txt says. With MLCUBE_E2E_MKDIR set it makes its output
// folders first, as a program that does not count on MLCube does.
const objDataProgram = `set -eu
task=$1; shift
for a do
  case $a in
  --data_dir=*) data=${a#*=} ;;
  --model_dir=*) model=${a#*=} ;;
  --metrics=*) metrics=${a#*=} ;;
  esac
done
if [ -n "${MLCUBE_E2E_MKDIR:-}" ]; then
  case $task in
  prepare) mkdir -p "$data" ;;
  train) mkdir -p "$model" ;;
  evaluate) mkdir -p "${metrics%/*}" ;;
  esac
fi
case $task in
prepare)
  if [ "$MLCUBE_E2E_ATTEMPT" = 0 ]; then
    echo partial >"$data/partial.txt"; echo first >"$data/data.txt"; exit 3
  fi
  echo second >"$data/data.txt" ;;
train) ;;
evaluate)
  { (cd "$data" && find . -type f | LC_ALL=C sort && cat data.txt); ` +
	`(cd "$model" && find . | LC_ALL=C sort); } >"$metrics" ;;
esac
`

// objDataMetrics is what evaluate must write: only the data of prepare's
// attempt that succeeded, and train's empty model folder.
const objDataMetrics = "./data.txt\nsecond\n.\n"

// compileObjData compiles bucket-pipeline's cube, with prepare retried,
// for the real node.
func compileObjData(t *testing.T, backend string, image string) []string {
	t.Helper()
	ex := filepath.Join(repoRoot, "examples", "bucket-pipeline")
	pipeline := filepath.Join(t.TempDir(), "pipeline.yaml")
	text := "name: objdata\nsteps:\n  prepare:\n    task: prepare\n    retries: {limit: 2, backoff: 1s}\n  train:\n" +
		"    task: train\n  evaluate:\n    task: evaluate\n"
	if err := os.WriteFile(pipeline, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := compileArgs(t, "mlcube-compile", "--backend", backend, "--mlcube", ex, "--task", pipeline,
		"--platform", realNodePlatform(t, filepath.Join(ex, "platform.yaml"), image))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	return strings.Split(strings.TrimSuffix(out, "\n"), "\n---\n")
}

// TestE2EArgoObjectData runs on the real node, with Argo's controller
// (v3.7, and v4 in make e2e's second pass), a pipeline whose data moves
// through the bucket (issue 49, points 1, 9 and 10): prepare writes a
// partial output into a folder it never made and fails, and succeeds on
// its retry; train leaves its output folder empty; evaluate reads both
// and writes a file into a folder it never made. Argo's wait container
// uploads the failed attempt's output too: it stays at that attempt's
// key, and evaluate reads only the retry's files.
func TestE2EArgoObjectData(t *testing.T) {
	c, s := e2eCluster(t), e2eObjectStore(t)
	t.Parallel()
	seedBucket(t, s)
	for _, name := range objDataRuns {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			argoObjData(t, c, s, name)
		})
	}
}

// objDataRuns name the runs of the object data tests: the programs
// make no folder, or (-mkdir) make their own, which leaves points 1 and
// 9 alone to the test.
var objDataRuns = []string{"objdata", "objdata-mkdir"}

// objDataEnv is the env of a run's programs: the attempt's number, as
// the engine writes it, and MLCUBE_E2E_MKDIR for a -mkdir run.
func objDataEnv(run, attempt string) []corev1.EnvVar {
	env := []corev1.EnvVar{{Name: "MLCUBE_E2E_ATTEMPT", Value: attempt}}
	if strings.HasSuffix(run, "-mkdir") {
		env = append(env, corev1.EnvVar{Name: "MLCUBE_E2E_MKDIR", Value: "1"})
	}
	return env
}

// argoObjData is one run of TestE2EArgoObjectData.
func argoObjData(t *testing.T, c *cluster, s *objectStore, name string) {
	docs := compileObjData(t, "argo", realImage)
	wf := decodeWorkflow(t, docs[len(docs)-1])
	r := c.newRealRun(t, name, docs, wf)
	s.credentials(t, c, r.ns)
	for i := range r.wf.Spec.Templates {
		tmpl := &r.wf.Spec.Templates[i]
		if tmpl.ContainerSet == nil {
			continue
		}
		for j := range tmpl.ContainerSet.Containers {
			ctr := &tmpl.ContainerSet.Containers[j]
			if ctr.Name == "run" || (ctr.Name == "main" && !tmpl.ContainerSet.HasContainerNamed("run")) {
				ctr.Command = []string{"sh", "-c", objDataProgram, "program"}
				ctr.Env = append(ctr.Env, objDataEnv(name, "{{retries}}")...)
			}
		}
		if s := tmpl.RetryStrategy; s != nil && s.Backoff != nil {
			s.Backoff.Duration = "2s"
		}
	}
	done := r.succeed(t, 8*time.Minute)
	if attempts := retryAttempts(done, "prepare"); len(attempts) != 2 || attempts[0].Phase != wfv1.NodeFailed {
		t.Fatalf("prepare ran %d attempts, want a failed one then one that succeeded:\n%s", len(attempts), nodeSummary(done))
	}
	run := string(done.UID)
	objects := s.objects(t, run+"/")
	if _, ok := objects[run+"/prepare.0/data-dir/partial.txt"]; !ok {
		t.Errorf("the failed attempt's output is not at its own key (Argo uploads it): %v", keysOf(objects))
	}
	for key := range objects {
		if strings.HasPrefix(key, run+"/prepare.1/") && strings.HasSuffix(key, "partial.txt") {
			t.Errorf("%s: the retry's key holds the failed attempt's file", key)
		}
	}
	if got := string(s.get(t, run+"/evaluate/metrics")); got != objDataMetrics {
		t.Errorf("evaluate read %q, want %q: only the retry's files and an empty model folder", got, objDataMetrics)
	}
	t.Logf("%s: Succeeded; prepare's failed attempt left %d objects at its own key, evaluate read only the retry's",
		done.Name, countPrefix(objects, run+"/prepare.0/"))
}

// TestE2ETektonObjectData runs TestE2EArgoObjectData's pipeline with
// Tekton's controller: a task's upload step runs only when its step
// succeeded, and rclone's sync leaves at the key only what the retry
// wrote; an empty folder is an empty folder downstream, and the folders
// exist before the programs start.
func TestE2ETektonObjectData(t *testing.T) {
	c, s := e2eCluster(t), e2eObjectStore(t)
	t.Parallel()
	seedBucket(t, s)
	for _, name := range objDataRuns {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tektonObjData(t, c, s, name)
		})
	}
}

// tektonObjData is one run of TestE2ETektonObjectData.
func tektonObjData(t *testing.T, c *cluster, s *objectStore, name string) {
	docs := compileObjData(t, "tekton", tektonImage)
	r := c.newTektonRun(t, name, docs, decodePipelineRun(t, docs[len(docs)-1]))
	s.credentials(t, c, r.ns)
	for _, task := range r.pr.Spec.PipelineSpec.Tasks {
		for i := range task.TaskSpec.Steps {
			if st := &task.TaskSpec.Steps[i]; st.Name == "main" {
				st.Command = []string{"sh", "-c", objDataProgram, "program"}
				st.Env = append(st.Env, objDataEnv(name, "$(context.task.retry-count)")...)
			}
		}
	}
	done := r.runSucceeded(t, 8*time.Minute)
	retries := r.c.must(t, "", "-n", r.ns, "get", "taskruns", "-l", "tekton.dev/pipelineTask=prepare", "-o",
		"jsonpath={.items[0].status.retriesStatus[*].conditions[0].reason}")
	if retries != "StepFailed" {
		t.Errorf("prepare's earlier attempts ended %q, want one StepFailed", retries)
	}
	run := string(done.UID)
	objects := s.objects(t, run+"/")
	for key := range objects {
		if strings.HasSuffix(key, "partial.txt") {
			t.Errorf("%s: the failed attempt's file is in the bucket", key)
		}
	}
	if got := string(s.get(t, run+"/evaluate/metrics")); got != objDataMetrics {
		t.Errorf("evaluate read %q, want %q: only the retry's files and an empty model folder", got, objDataMetrics)
	}
	t.Logf("%s: Succeeded; evaluate read only the retry's files, and %d objects are in the bucket",
		done.Name, len(objects))
}

// countPrefix counts the keys of m that start with prefix.
func countPrefix(m map[string]string, prefix string) int {
	n := 0
	for k := range m {
		if strings.HasPrefix(k, prefix) {
			n++
		}
	}
	return n
}

// TestE2EJobObjectData runs prepare of bucket-pipeline's cube as a Job
// on the real node, its program writing into an output folder it never
// made (issue 49, point 10): the Job's fetch container makes it first,
// and the bucket then holds exactly what it wrote. A Job runs one step:
// no other step fetches its upload, and a failed attempt never uploads
// (its upload container starts only after the step's succeeded).
func TestE2EJobObjectData(t *testing.T) {
	c, s := e2eCluster(t), e2eObjectStore(t)
	t.Parallel()
	seedBucket(t, s)
	ex := filepath.Join(repoRoot, "examples", "bucket-pipeline")
	out, stderr, code := compileArgs(t, "mlcube-compile", "--backend", "job", "--mlcube", ex, "--task", "prepare",
		"--platform", realNodePlatform(t, filepath.Join(ex, "platform.yaml"), realImage))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	ns, name := "e2e-job-objdata", "objdata"
	c.namespace(t, ns)
	s.credentials(t, c, ns)
	c.must(t, "", "-n", ns, "delete", "job", name, "--ignore-not-found", "--wait", "--cascade=foreground")
	docs := strings.Split(strings.TrimSuffix(out, "\n"), "\n---\n")
	var job batchv1.Job
	if err := yaml.UnmarshalStrict([]byte(docs[len(docs)-1]), &job); err != nil {
		t.Fatal(err)
	}
	spec := &job.Spec.Template.Spec
	if spec.ServiceAccountName != "" {
		c.ensure(t, "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: "+spec.ServiceAccountName+
			", namespace: "+ns+"}\n")
	}
	job.Namespace, job.Name, job.GenerateName = ns, name, ""
	if spec.NodeSelector == nil {
		spec.NodeSelector = map[string]string{}
	}
	spec.NodeSelector["kubernetes.io/hostname"] = realNode
	spec.Tolerations = append(spec.Tolerations,
		corev1.Toleration{Key: realNodeTaint, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule})
	for _, cs := range [][]corev1.Container{spec.InitContainers, spec.Containers} {
		for i := range cs {
			shrink(&cs[i].Resources)
			if len(cs[i].Args) > 0 && cs[i].Args[0] == "prepare" {
				cs[i].Command = []string{"sh", "-c", objDataProgram, "program"}
				cs[i].Env = append(cs[i].Env, corev1.EnvVar{Name: "MLCUBE_E2E_ATTEMPT", Value: "1"})
			}
		}
	}
	manifest, err := json.Marshal(job)
	if err != nil {
		t.Fatal(err)
	}
	c.must(t, string(manifest), "create", "-f", "-")
	ended := waitForAny(t, 5*time.Minute, func() string {
		conds := c.jsonPath(t, ns, "job/"+name, `{.status.conditions[?(@.status=="True")].type}`)
		if strings.Contains(conds, "Complete") || strings.Contains(conds, "Failed") {
			return conds
		}
		return ""
	})
	if !strings.Contains(ended, "Complete") {
		t.Fatalf("the Job ended %s:\n%s", ended, c.must(t, "", "-n", ns, "describe", "job,pods"))
	}
	uid := c.must(t, "", "-n", ns, "get", "job", name, "-o", "jsonpath={.metadata.uid}")
	objects := s.objects(t, uid+"/")
	key, statement := uid+"/prepare/data-dir/data.txt", uid+"/provenance.intoto.json"
	if len(objects) != 2 || string(s.get(t, key)) != "second\n" || objects[statement] == "" {
		t.Errorf("the bucket holds %v under the Job's key, want %s, holding %q, and %s", keysOf(objects), key,
			"second\n", statement)
	}
	t.Logf("Job %s: Complete; %s holds what its program wrote into a folder it never made", name, key)
	// The statement the Job wrote names the folder it uploaded.
	dir := t.TempDir()
	write := func(file, key string) {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, s.get(t, key), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, "data-dir", "data.txt"), key)
	write(filepath.Join(dir, "provenance.intoto.json"), statement)
	out, stderr, code = compileArgs(t, "mlcube-compile", "verify", filepath.Join(dir, "data-dir"),
		filepath.Join(dir, "provenance.intoto.json"))
	if code != 0 || !strings.Contains(out, "is subject prepare/data-dir of") {
		t.Fatalf("verify of the Job's upload: exit %d\n%s%s", code, out, stderr)
	}
	t.Logf("verify: %s", strings.TrimSpace(out))
}
