//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tektoncd/pipeline/pkg/apis/pipeline/pod"
	tektonv1 "github.com/tektoncd/pipeline/pkg/apis/pipeline/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// tektonImage is the base image as Tekton's controller reads it: from the
// registry scripts/e2e/tekton.sh starts on the node's address (Tekton
// looks up the entrypoint of a step without a command there, and runs the
// step by that digest, which the node's containerd holds).
const tektonImage = "10.213.0.1:15000/" + realImage

// tektonRun is one PipelineRun on the real node.
type tektonRun struct {
	*realRun
	pr, golden *tektonv1.PipelineRun
	configs    map[string]string
}

// TestE2ETektonOnRealNode compiles every example for Tekton with the
// real node's image, runs it with Tekton's real controller and webhook
// (which default and validate it), and asserts what each step's
// container received against the golden file, as the Argo test does.
func TestE2ETektonOnRealNode(t *testing.T) {
	c := e2eCluster(t)
	t.Parallel()
	ran := 0
	for _, path := range goldenFiles(t, "tekton") {
		name := strings.TrimSuffix(filepath.Base(path), ".yaml")
		t.Run(name, func(t *testing.T) {
			golden := goldenDocuments(t, path)
			last := golden[len(golden)-1]
			if slices.ContainsFunc([]string{"MPIJob", "DaskJob", "TrainJob", "JobSet"}, func(kind string) bool {
				return strings.Contains(last, kind)
			}) {
				t.Skip("not run here: it creates MPI jobs (TestE2ETektonMPIOnRealNode runs resnet50's), TrainJobs " +
					"(TestE2ETektonTorchOnRealNode runs torch-ddp's) or Dask jobs (e2e/daskreal_test.go)")
			}
			if medPerfExample(name) {
				t.Skip(medPerfNotRecorded)
			}
			if objectExample(name) {
				t.Skip("run by TestE2ETektonObjectStorage, with the bucket it reads")
			}
			if slices.Contains(cachedExamples, name) {
				t.Skip("run by TestE2ETektonCache and TestE2ETektonCacheClaim, each run more than once")
			}
			if draExample(name) {
				t.Skip(draNotRun)
			}
			if name == "legacy-test-cube" {
				t.Skip("not run here: a legacy cube's image is named by MLCube's docker platform, and Tekton reads a step's " +
					"entrypoint from that image's registry")
			}
			docs := compileForRealNode(t, filepath.Join(repoRoot, "examples", name), "tekton", tektonImage)
			ran++
			t.Parallel()
			r := c.newTektonRun(t, name, docs, decodePipelineRun(t, last))
			done := r.runSucceeded(t, 5*time.Minute)
			recs, pods := r.records(t), r.tektonPods(t)
			byTask := map[string]record{}
			for _, task := range r.golden.Spec.PipelineSpec.Tasks {
				step := *userStep(&task)
				if !recorded(&corev1.Container{Command: step.Command}) {
					continue
				}
				rec, ok := recs[pods[task.Name]]
				if !ok {
					t.Errorf("task %s (pod %q) left no record in the workspace", task.Name, pods[task.Name])
					continue
				}
				checkRecord(t, "task "+task.Name, r.want(task), rec)
				byTask[task.Name] = rec
			}
			checkFlow(t, r.before, byTask)
			t.Logf("%s: Succeeded on %s in %s; %d of %d tasks' containers checked", done.Name, realNode,
				done.Status.CompletionTime.Sub(done.Status.StartTime.Time), len(byTask), len(r.golden.Spec.PipelineSpec.Tasks))
		})
	}
	if ran == 0 {
		t.Fatal("no golden PipelineRun ran")
	}
}

func decodePipelineRun(t *testing.T, doc string) *tektonv1.PipelineRun {
	t.Helper()
	var pr tektonv1.PipelineRun
	if err := yaml.UnmarshalStrict([]byte(doc), &pr); err != nil {
		t.Fatal(err)
	}
	return &pr
}

// newTektonRun prepares namespace e2e-tekton-NAME for the PipelineRun in
// docs as newRealRun does for a workflow: service account, the other
// documents (its ConfigMap), secrets, volumes, node labels; it gives every
// pipeline parameter a value and pins the pods to the real node.
func (c *cluster) newTektonRun(t *testing.T, name string, docs []string, golden *tektonv1.PipelineRun) *tektonRun {
	t.Helper()
	r := c.newUnpinnedTektonRun(t, name, docs, golden)
	r.pin(t)
	return r
}

// newUnpinnedTektonRun is newTektonRun but for the pin: the PipelineRun's
// pods go where its own scheduling sends them.
func (c *cluster) newUnpinnedTektonRun(t *testing.T, name string, docs []string,
	golden *tektonv1.PipelineRun) *tektonRun {
	t.Helper()
	ns := "e2e-tekton-" + name
	r := &tektonRun{
		realRun: &realRun{c: c, ns: ns, secrets: map[string]string{}, volumes: map[string]string{},
			params: map[string]string{}},
		pr:     decodePipelineRun(t, docs[len(docs)-1]),
		golden: golden,
	}
	c.namespace(t, ns)
	c.must(t, "", "-n", ns, "delete", "pipelinerun", name, "--ignore-not-found")
	pr := r.pr
	pr.Namespace, pr.Name, pr.GenerateName = ns, name, ""
	if sa := pr.Spec.TaskRunTemplate.ServiceAccountName; sa != "" {
		c.ensure(t, fmt.Sprintf("apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: %s, namespace: %s}\n", sa, ns))
	}
	for _, doc := range docs[:len(docs)-1] {
		c.ensure(t, inNamespace(t, doc, ns))
		var cm corev1.ConfigMap
		if yaml.Unmarshal([]byte(doc), &cm) == nil && cm.Kind == "ConfigMap" {
			r.configs = cm.Data
		}
	}
	pr.Spec.Params = nil
	for _, p := range pr.Spec.PipelineSpec.Params {
		v := submitValue(p.Name)
		if len(p.Enum) > 0 {
			v = p.Enum[len(p.Enum)-1]
		}
		r.params[p.Name] = v
		pr.Spec.Params = append(pr.Spec.Params, tektonv1.Param{Name: p.Name, Value: *tektonv1.NewStructuredValues(v)})
	}
	for _, task := range pr.Spec.PipelineSpec.Tasks {
		for i := range task.TaskSpec.Steps {
			r.secretsOf(t, task.TaskSpec.Steps[i].Env)
			shrink(&task.TaskSpec.Steps[i].ComputeResources)
		}
		imageWorkspaceOnRealNode(task.TaskSpec.Volumes)
	}
	for _, ws := range pr.Spec.Workspaces {
		switch {
		case ws.PersistentVolumeClaim != nil:
			r.claim(t, ws.PersistentVolumeClaim.ClaimName,
				corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany}}, claimMake)
		case ws.VolumeClaimTemplate != nil:
			r.claim(t, ws.Name, ws.VolumeClaimTemplate.Spec, claimOffer)
		}
	}
	return r
}

// pin keeps every pod of the run, the affinity assistant's too, on the
// real node, whose taint keeps the suite's KWOK pods off it, and gives
// the real node the labels the run's node selectors ask for.
func (r *tektonRun) pin(t *testing.T) {
	t.Helper()
	labels := map[string]string{}
	pin := func(tmpl **pod.PodTemplate) {
		if *tmpl == nil {
			*tmpl = &pod.PodTemplate{}
		}
		maps.Copy(labels, (*tmpl).NodeSelector)
		if (*tmpl).NodeSelector == nil {
			(*tmpl).NodeSelector = map[string]string{}
		}
		(*tmpl).NodeSelector["kubernetes.io/hostname"] = realNode
		(*tmpl).Tolerations = append((*tmpl).Tolerations,
			corev1.Toleration{Key: realNodeTaint, Operator: corev1.TolerationOpExists})
	}
	pin(&r.pr.Spec.TaskRunTemplate.PodTemplate)
	for i := range r.pr.Spec.TaskRunSpecs {
		pin(&r.pr.Spec.TaskRunSpecs[i].PodTemplate)
	}
	delete(labels, "kubernetes.io/hostname")
	r.c.labelRealNode(t, labels)
}

// labelRealNode gives the real node labels, keeping its others.
func (c *cluster) labelRealNode(t *testing.T, labels map[string]string) {
	t.Helper()
	if len(labels) == 0 {
		return
	}
	args := []string{"label", "node", realNode, "--overwrite"}
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		args = append(args, k+"="+labels[k])
	}
	c.must(t, "", args...)
}

// runSucceeded runs the PipelineRun as run does, and fails the test
// unless it Succeeded, with what the run's namespace holds of get
// (taskruns and pods unless said).
func (r *tektonRun) runSucceeded(t *testing.T, timeout time.Duration, get ...string) *tektonv1.PipelineRun {
	t.Helper()
	done := r.run(t, timeout)
	if cond := done.Status.GetCondition("Succeeded"); cond == nil || cond.Status != corev1.ConditionTrue {
		if len(get) == 0 {
			get = []string{"taskruns,pods"}
		}
		t.Fatalf("PipelineRun %s: %+v\n%s", done.Name, cond, r.c.must(t, "", append([]string{"-n", r.ns, "get"}, get...)...))
	}
	return done
}

// run creates the PipelineRun and waits for it to finish.
func (r *tektonRun) run(t *testing.T, timeout time.Duration) *tektonv1.PipelineRun {
	t.Helper()
	manifest, err := yaml.Marshal(r.pr)
	if err != nil {
		t.Fatal(err)
	}
	return r.waitDone(t, strings.TrimSpace(r.c.must(t, string(manifest), "create", "-o", "name", "-f", "-")), timeout)
}

// tektonPods maps each pipeline task to the pod of its last attempt.
func (r *tektonRun) tektonPods(t *testing.T) map[string]string {
	t.Helper()
	var list corev1.PodList
	out := r.c.must(t, "", "-n", r.ns, "get", "pods", "-l", "tekton.dev/pipelineRun="+r.pr.Name,
		"--sort-by=.metadata.creationTimestamp", "-o", "json")
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatal(err)
	}
	pods := map[string]string{}
	for _, p := range list.Items {
		pods[p.Labels["tekton.dev/pipelineTask"]] = p.Name
	}
	return pods
}

// want is what the step of a pipeline task must receive: Tekton fills
// $(params.x) in the task's spec from the task's params, which take the
// pipeline's.
func (r *tektonRun) want(task tektonv1.PipelineTask) want {
	pipelineParams := func(s string) string {
		for name, v := range r.params {
			s = strings.ReplaceAll(s, "$(params."+name+")", v)
		}
		return strings.ReplaceAll(s, "$(context.pipelineRun.name)", r.pr.Name)
	}
	taskParams := map[string]string{}
	for _, p := range task.Params {
		taskParams[p.Name] = pipelineParams(p.Value.StringVal)
	}
	expand := func(s string) string {
		for name, v := range taskParams {
			s = strings.ReplaceAll(s, "$(params."+name+")", v)
		}
		return strings.ReplaceAll(s, "$(context.pipelineRun.name)", r.pr.Name)
	}
	step := *userStep(&task)
	var args []string
	for _, a := range step.Args {
		args = append(args, expand(a))
	}
	w := want{argv: wantArgv(step.Command, args), env: r.wantEnv(step.Env, expand, r.configs)}
	if tmpl := r.golden.Spec.TaskRunTemplate.PodTemplate; tmpl != nil {
		w.securityContext(tmpl.SecurityContext)
	}
	for _, spec := range r.golden.Spec.TaskRunSpecs {
		if spec.PipelineTaskName == task.Name && spec.PodTemplate != nil {
			w.securityContext(spec.PodTemplate.SecurityContext)
		}
	}
	for _, ws := range task.TaskSpec.Workspaces {
		w.claims = append(w.claims, ws.MountPath)
	}
	return w
}

// before gives the tasks a pipeline task runs after, directly or not.
func (r *tektonRun) before(task string) map[string]bool {
	deps := map[string][]string{}
	for _, pt := range r.golden.Spec.PipelineSpec.Tasks {
		deps[pt.Name] = pt.RunAfter
	}
	return transitive(deps, task)
}

// TestE2ETektonUntimedStepsOutliveTheDefault shortens Tekton's
// default-timeout-minutes to 1 and runs mnist's PipelineRun with its first
// step taking 75 s: with the compiled timeouts (0s: none) it must succeed;
// the control run, the same PipelineRun without them, must time out, as
// every untimed step did before (Tekton's pipelineRunTimeout in
// pkg/reconciler/pipelinerun/pipelinerun.go gives a TaskRun no timeout of
// its own when spec.timeouts.tasks is unset, and TaskRun defaulting then
// applies default-timeout-minutes).
func TestE2ETektonUntimedStepsOutliveTheDefault(t *testing.T) {
	c := e2eCluster(t)
	old := strings.TrimSpace(c.must(t, "", "-n", "tekton-pipelines", "get", "configmap", "config-defaults", "-o",
		"jsonpath={.data.default-timeout-minutes}"))
	setDefault := func(minutes string) {
		value := `"` + minutes + `"`
		if minutes == "" { // unset, as Tekton ships it: 60 minutes
			value = "null"
		}
		c.must(t, "", "-n", "tekton-pipelines", "patch", "configmap", "config-defaults", "--type=merge",
			"-p", `{"data":{"default-timeout-minutes":`+value+`}}`)
	}
	setDefault("1")
	t.Cleanup(func() { setDefault(old) })
	time.Sleep(5 * time.Second) // the controller's informer picks the change up
	golden := goldenDocuments(t, filepath.Join(repoRoot, "testdata", "golden", "tekton", "mnist.yaml"))
	docs := compileForRealNode(t, filepath.Join(repoRoot, "examples", "mnist"), "tekton", tektonImage)
	for _, tc := range []struct {
		name     string
		timeouts bool
	}{{"timeouts", true}, {"timeouts-control", false}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := c.newTektonRun(t, tc.name, docs, decodePipelineRun(t, golden[len(golden)-1]))
			if !tc.timeouts {
				r.pr.Spec.Timeouts = nil
			}
			step := userStep(&r.pr.Spec.PipelineSpec.Tasks[0])
			step.Env = append(step.Env, corev1.EnvVar{Name: "MLCUBE_E2E_SLEEP", Value: "75"})
			done := r.run(t, 5*time.Minute)
			cond := done.Status.GetCondition("Succeeded")
			switch {
			case tc.timeouts && (cond == nil || cond.Status != corev1.ConditionTrue):
				t.Fatalf("with the compiled timeouts, a 75 s step under a 1-minute default: %+v", cond)
			case !tc.timeouts && (cond == nil || cond.Status != corev1.ConditionFalse ||
				!strings.Contains(cond.Reason+cond.Message, "imeout")):
				t.Fatalf("control: without timeouts, the 75 s step should time out under a 1-minute default: %+v", cond)
			}
			t.Logf("%s: %s (%s) with a 75 s step and default-timeout-minutes 1", done.Name, cond.Reason,
				done.Status.CompletionTime.Sub(done.Status.StartTime.Time).Round(time.Second))
		})
	}
}

// userStep is the step of a task that runs the user's program: "main",
// after the steps that make its folders or fetch its data; the first
// step of a task that has none by that name.
func userStep(task *tektonv1.PipelineTask) *tektonv1.Step {
	for i := range task.TaskSpec.Steps {
		if task.TaskSpec.Steps[i].Name == "main" {
			return &task.TaskSpec.Steps[i]
		}
	}
	return &task.TaskSpec.Steps[0]
}
