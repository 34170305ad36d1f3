//go:build e2e

package e2e

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// records reads every record the run's containers wrote, by pod (by
// pod-rankN for the ranks of an MPI step).
func (r *realRun) records(t *testing.T) map[string]record {
	t.Helper()
	out := map[string]record{}
	for _, dir := range r.volumes {
		files, _ := filepath.Glob(filepath.Join(dir, ".e2e", "records", "*.json"))
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var rec record
			if err := json.Unmarshal(data, &rec); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			out[strings.TrimSuffix(filepath.Base(f), ".json")] = rec
		}
	}
	return out
}

// pods maps each Argo node name of the run (workflow.task) to its pod.
func (r *realRun) pods(t *testing.T) map[string]string {
	t.Helper()
	var list corev1.PodList
	out := r.c.must(t, "", "-n", r.ns, "get", "pods", "-l", "workflows.argoproj.io/workflow="+r.wf.Name, "-o", "json")
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatal(err)
	}
	pods := map[string]string{}
	for _, p := range list.Items {
		pods[p.Annotations["workflows.argoproj.io/node-name"]] = p.Name
	}
	return pods
}

var placeholder = regexp.MustCompile(`\{\{\s*(workflow\.parameters|inputs\.parameters)\.([A-Za-z0-9_-]+)\s*\}\}`)

// expand fills a template string as Argo does for a task: workflow
// parameters with their submitted values, inputs with the task's arguments.
func (r *realRun) expand(s string, task wfv1.DAGTask) string {
	for i := 0; i < 3 && strings.Contains(s, "{{"); i++ {
		s = placeholder.ReplaceAllStringFunc(s, func(m string) string {
			g := placeholder.FindStringSubmatch(m)
			if g[1] == "workflow.parameters" {
				return r.params[g[2]]
			}
			for _, p := range task.Arguments.Parameters {
				if p.Name == g[2] && p.Value != nil {
					return p.Value.String()
				}
			}
			return m
		})
		s = strings.ReplaceAll(s, "{{workflow.name}}", r.wf.Name)
	}
	return s
}

// recorded reports whether the image's recorder is the program a
// container runs: it has no command (the image's entrypoint), or runs
// `python`, which the image points at the recorder.
func recorded(c *corev1.Container) bool {
	return len(c.Command) == 0 || c.Command[0] == "python"
}

// want is what one step's container must have received, from the golden
// file, with the engine's placeholders filled in.
type want struct {
	argv []string
	// env maps each variable to its value (secret and ConfigMap values
	// looked up).
	env               map[string]string
	uid, gid, fsGroup *int64
	// claims are the mount paths of the step's claims, which fsGroup owns.
	claims []string
}

// wantArgv is what the program of a container with command and args
// receives as argv: the image's entrypoint (the recorder) when there is
// no command, and python is the recorder too.
func wantArgv(command, args []string) []string {
	argv := slices.Clone(command)
	if len(argv) == 0 {
		argv = []string{recordEntrypoint}
	} else {
		argv[0] = "/usr/local/bin/python"
	}
	return append(argv, args...)
}

// wantEnv resolves a container's env as the kubelet does, from the
// secrets the run made and the golden ConfigMap's data.
func (r *realRun) wantEnv(env []corev1.EnvVar, expand func(string) string,
	configs map[string]string) map[string]string {
	out := map[string]string{}
	for _, e := range env {
		switch {
		case e.ValueFrom == nil:
			out[e.Name] = expand(e.Value)
		case e.ValueFrom.SecretKeyRef != nil:
			out[e.Name] = r.secrets[e.ValueFrom.SecretKeyRef.Name+"/"+e.ValueFrom.SecretKeyRef.Key]
		case e.ValueFrom.ConfigMapKeyRef != nil:
			out[e.Name] = configs[e.ValueFrom.ConfigMapKeyRef.Key]
		}
	}
	return out
}

func (w *want) securityContext(sc *corev1.PodSecurityContext) {
	if sc != nil {
		w.uid, w.gid, w.fsGroup = sc.RunAsUser, sc.RunAsGroup, sc.FSGroup
	}
}

// checkRecord asserts a container's record against what it should have
// received: argv exactly, every env value, uid, gid, and fsGroup in its
// groups and owning its claims.
func checkRecord(t *testing.T, step string, w want, rec record) {
	t.Helper()
	if !slices.Equal(rec.Argv, w.argv) {
		t.Errorf("%s: argv\n  %q\nwant\n  %q", step, rec.Argv, w.argv)
	}
	for _, name := range slices.Sorted(maps.Keys(w.env)) {
		if got, ok := rec.Env[name]; !ok || got != w.env[name] {
			t.Errorf("%s: env %s = %q (set: %v), want %q", step, name, got, ok, w.env[name])
		}
	}
	if w.uid != nil && rec.UID != int(*w.uid) {
		t.Errorf("%s: uid %d, want runAsUser %d", step, rec.UID, *w.uid)
	}
	if w.gid != nil && rec.GID != int(*w.gid) {
		t.Errorf("%s: gid %d, want runAsGroup %d", step, rec.GID, *w.gid)
	}
	if w.fsGroup != nil {
		if !slices.Contains(rec.Groups, int(*w.fsGroup)) {
			t.Errorf("%s: groups %v lack fsGroup %d", step, rec.Groups, *w.fsGroup)
		}
		for _, m := range w.claims {
			if mode, ok := rec.Modes[m]; ok && mode.GID != int(*w.fsGroup) {
				t.Errorf("%s: %s belongs to group %d, want fsGroup %d", step, m, mode.GID, *w.fsGroup)
			}
		}
	}
}

// argoWant is what the container of a task of the golden workflow must
// receive.
func (r *realRun) argoWant(t *testing.T, task wfv1.DAGTask) want {
	t.Helper()
	tmpl := r.golden.GetTemplateByName(task.Template)
	c := tmpl.Container
	expand := func(s string) string { return r.expand(s, task) }
	var args []string
	for _, a := range c.Args {
		args = append(args, expand(a))
	}
	w := want{argv: wantArgv(c.Command, args), env: r.wantEnv(c.Env, expand, r.configMapData(t))}
	w.securityContext(r.golden.Spec.SecurityContext)
	if tmpl.SecurityContext != nil {
		w.securityContext(tmpl.SecurityContext)
	}
	for _, m := range c.VolumeMounts {
		if r.isClaim(m.Name) {
			w.claims = append(w.claims, m.MountPath)
		}
	}
	return w
}

func (r *realRun) isClaim(volume string) bool {
	for _, v := range r.golden.Spec.Volumes {
		if v.Name == volume {
			return v.PersistentVolumeClaim != nil
		}
	}
	return slices.ContainsFunc(r.golden.Spec.VolumeClaimTemplates,
		func(c corev1.PersistentVolumeClaim) bool { return c.Name == volume })
}

// configMapData is the data of the ConfigMap the golden workflow applies.
func (r *realRun) configMapData(t *testing.T) map[string]string {
	t.Helper()
	for _, tmpl := range r.golden.Spec.Templates {
		if tmpl.Resource != nil && strings.Contains(tmpl.Resource.Manifest, "kind: ConfigMap") {
			var cm corev1.ConfigMap
			if err := yaml.Unmarshal([]byte(tmpl.Resource.Manifest), &cm); err != nil {
				t.Fatal(err)
			}
			return cm.Data
		}
	}
	return nil
}

// checkFlow asserts that files flow along the DAG: every path a task's
// arguments name that an upstream task wrote holds, when the task starts,
// what that task wrote; and no task sees a file from a task it does not
// come after. before gives the tasks a task runs after.
func checkFlow(t *testing.T, before func(task string) map[string]bool, byTask map[string]record) {
	t.Helper()
	writer := map[string]string{} // path -> task that created it
	for task, rec := range byTask {
		for _, p := range rec.Outputs {
			writer[p] = task
		}
	}
	for task, rec := range byTask {
		after := before(task)
		for p, files := range rec.Inputs {
			w, ok := writer[p]
			if !ok {
				continue
			}
			if !after[w] {
				t.Errorf("task %s read %s, written by %s, which it does not run after", task, p, w)
				continue
			}
			mark := "written by " + byTask[w].Pod + "\n"
			if !slices.ContainsFunc(slices.Collect(maps.Values(files)),
				func(f map[string]string) bool { return f["text"] == mark }) {
				t.Errorf("task %s: %s holds %v, want what %s wrote (%q)", task, p, files, w, mark)
			}
		}
	}
}

// upstream is every task that task runs after, directly or not.
func upstream(dag *wfv1.DAGTemplate, task string) map[string]bool {
	deps := map[string][]string{}
	for _, t := range dag.Tasks {
		deps[t.Name] = t.Dependencies
	}
	return transitive(deps, task)
}

// transitive is every task that task comes after, given each task's direct
// dependencies.
func transitive(deps map[string][]string, task string) map[string]bool {
	before := map[string]bool{}
	var visit func(string)
	visit = func(name string) {
		for _, d := range deps[name] {
			if !before[d] {
				before[d] = true
				visit(d)
			}
		}
	}
	visit(task)
	return before
}

// succeed creates the run's workflow, waits for it to finish, and
// fails the test unless it Succeeded.
func (r *realRun) succeed(t *testing.T, timeout time.Duration) *wfv1.Workflow {
	t.Helper()
	manifest, err := yaml.Marshal(r.wf)
	if err != nil {
		t.Fatal(err)
	}
	created := strings.TrimSpace(r.c.must(t, string(manifest), "create", "-o", "name", "-f", "-"))
	done := r.c.wait(t, r.ns, created, timeout)
	if done.Status.Phase != wfv1.WorkflowSucceeded {
		t.Fatalf("phase %s: %s\n%s", done.Status.Phase, done.Status.Message, nodeSummary(done))
	}
	return done
}
