//go:build e2e

package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"
)

// The real node that scripts/e2e/node.sh starts (versions.sh names it):
// its containers run, in the image scripts/e2e/images.sh builds, whose
// program (scripts/e2e/image/record) records what each container received
// into the workspace.
const (
	realNode      = "mlcube-e2e-node"
	realNodeTaint = "e2e.mlcube-compile.io/real-node"
	realImage     = "mlcube-e2e/base:1"
	// recordEntrypoint is the image's entrypoint, which Argo runs for a
	// container that has args and no command.
	recordEntrypoint = "/usr/local/bin/mlcube-e2e-record"
)

// compileForRealNode compiles an example for backend with what a platform
// team running the suite's image sets on top of the example's platform:
// image in place of every cube's, never pulled, and kubectl steps in it
// too; and checks that the result is the golden
// file's but for images and pull policies: what runs is the product's own.
func compileForRealNode(t *testing.T, dir, backend, image string) []string {
	t.Helper()
	args := exampleArgs(dir)
	golden := filepath.Join(repoRoot, "testdata", "golden", backend, filepath.Base(dir)+".yaml")
	want := goldenDocuments(t, golden)
	i := slices.Index(args, "--platform")
	if i >= 0 && strings.HasSuffix(args[i+1], filepath.Join("platforms", "docker.yaml")) {
		// A legacy cube's --platform is MLCube's docker platform, which
		// has no image override: the node gets the image under the cube's
		// name, and the golden file runs as it is.
		for _, image := range imagesOf(t, want) {
			nodeContainerd(t, "images", "tag", "--force", "docker.io/"+realImage, dockerReference(image))
		}
		return want
	}
	plat := map[string]any{}
	if i >= 0 {
		data, err := os.ReadFile(args[i+1])
		if err != nil {
			t.Fatal(err)
		}
		if err := yaml.Unmarshal(data, &plat); err != nil {
			t.Fatal(err)
		}
	}
	maps.Copy(plat, map[string]any{"image": image, "imagePullPolicy": "Never", "kubectlImage": image})
	data, err := yaml.Marshal(plat)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "platform.yaml")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if i >= 0 {
		args[i+1] = file
	} else {
		args = append(args, "--platform", file)
	}
	out, stderr, code := compileArgs(t, append([]string{"mlcube-compile", "--backend", backend}, args...)...)
	if code != 0 {
		t.Fatalf("compile with the real node's platform: exit %d: %s", code, stderr)
	}
	got := strings.Split(strings.TrimSuffix(out, "\n"), "\n---\n")
	if len(got) != len(want) {
		t.Fatalf("%d documents, the golden file has %d", len(got), len(want))
	}
	for i := range got {
		if g, w := withoutImages(t, got[i]), withoutImages(t, want[i]); !reflect.DeepEqual(g, w) {
			t.Fatalf("document %d differs from %s in more than images (regenerate the golden file?):\ngot:\n%s", i, golden, got[i])
		}
	}
	return got
}

// imagesOf lists the images the documents name.
func imagesOf(t *testing.T, docs []string) []string {
	t.Helper()
	var images []string
	re := regexp.MustCompile(`(?m)^\s*image: *['"]?([^'"\s]+)`)
	for _, d := range docs {
		for _, m := range re.FindAllStringSubmatch(d, -1) {
			images = append(images, m[1])
		}
	}
	slices.Sort(images)
	return slices.Compact(images)
}

// dockerReference is an image's full name, as containerd and the kubelet
// store it: test/test:1 is docker.io/test/test:1, bash:5 is
// docker.io/library/bash:5.
func dockerReference(image string) string {
	first, _, found := strings.Cut(image, "/")
	switch {
	case !found:
		return "docker.io/library/" + image
	case strings.ContainsAny(first, ".:") || first == "localhost":
		return image
	}
	return "docker.io/" + image
}

// nodeContainerd runs ctr against the real node's containerd.
func nodeContainerd(t *testing.T, args ...string) {
	t.Helper()
	sock, err := filepath.Abs(filepath.Join(repoRoot, ".e2e", "run", "node", "containerd", "containerd.sock"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("ctr", append([]string{"--address", sock, "-n", "k8s.io"}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("ctr %s: %v: %s", strings.Join(args, " "), err, out)
	}
}

// withoutImages decodes a manifest, dropping every image, pull policy and
// pull secret, also inside the manifests a step creates.
func withoutImages(t *testing.T, doc string) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal([]byte(doc), &v); err != nil {
		t.Fatal(err)
	}
	var strip func(any) any
	strip = func(v any) any {
		switch v := v.(type) {
		case map[string]any:
			for _, k := range []string{"image", "imagePullPolicy", "imagePullSecrets"} {
				delete(v, k)
			}
			for k, x := range v {
				v[k] = strip(x)
			}
		case []any:
			for i, x := range v {
				v[i] = strip(x)
			}
		case string:
			// A manifest a step creates: YAML in Argo's resource
			// template, JSON in the MANIFEST of Tekton's kubectl step.
			if strings.Contains(v, "\nkind: ") || strings.HasPrefix(v, `{"apiVersion":`) {
				var inner any
				if yaml.Unmarshal([]byte(v), &inner) == nil {
					return strip(inner)
				}
			}
		}
		return v
	}
	return strip(v)
}

// submitValue is what every workflow parameter is given at submit time,
// as `argo submit -p name=...` would: a shell would have expanded the $,
// and split at the spaces and quotes, if anything on the way ran one.
func submitValue(name string) string {
	return fmt.Sprintf(`%s $HOME $(id) "dq" 'sq' \x`, name)
}

// realRun is one workflow run on the real node.
type realRun struct {
	c      *cluster
	ns     string
	wf     *wfv1.Workflow // as submitted
	golden *wfv1.Workflow // the golden file's, for the assertions
	docs   []string       // the golden file's other documents
	// secrets holds the value of each secret key the run refers to,
	// by "name/key".
	secrets map[string]string
	// volumes maps each claim to its folder on this host.
	volumes map[string]string
	// params holds the value each workflow parameter was submitted with.
	params map[string]string
}

// newRealRun prepares namespace e2e-real-NAME as a platform team would for
// wf: service accounts, the secrets its env names (with values holding
// quotes and dollars), a local volume for each claim, the node's labels.
// It pins every pod to the real node and shrinks cpu and memory requests
// to what a 2-core node has; nothing else of the workflow changes.
func (c *cluster) newRealRun(t *testing.T, name string, docs []string, golden *wfv1.Workflow) *realRun {
	t.Helper()
	wf := decodeWorkflow(t, docs[len(docs)-1])
	// Each run has a namespace of its own, so that nothing it makes meets
	// the dry-runs in the platform's namespace; the manifests its steps
	// apply move there with it.
	ns := "e2e-real-" + name
	for i := range wf.Spec.Templates {
		if res := wf.Spec.Templates[i].Resource; res != nil && res.Manifest != "" && wf.Namespace != "" {
			res.Manifest = inNamespace(t, res.Manifest, ns)
		}
	}
	r := &realRun{c: c, ns: ns, golden: golden, docs: docs, secrets: map[string]string{}, volumes: map[string]string{}, params: map[string]string{}}
	c.namespace(t, r.ns)
	// A run of an earlier test on this cluster (make e2e-up) goes first.
	c.must(t, "", "-n", r.ns, "delete", "workflow", name, "--ignore-not-found")
	wf.Namespace, wf.Name, wf.GenerateName = r.ns, name, ""
	r.wf = wf
	for _, sa := range serviceAccounts(wf) {
		c.ensure(t, fmt.Sprintf("apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: %s, namespace: %s}\n", sa, r.ns))
	}
	for _, doc := range docs[:len(docs)-1] {
		c.ensure(t, inNamespace(t, doc, r.ns))
	}
	for i, p := range wf.Spec.Arguments.Parameters {
		v := submitValue(p.Name)
		if len(p.Enum) > 0 {
			v = p.Enum[len(p.Enum)-1].String()
		}
		r.params[p.Name] = v
		wf.Spec.Arguments.Parameters[i].Value = wfv1.AnyStringPtr(v)
		wf.Spec.Arguments.Parameters[i].ValueFrom = nil
	}
	labels := nodeLabels(t, wf)
	args := []string{"label", "node", realNode, "--overwrite"}
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		args = append(args, k+"="+labels[k])
	}
	if len(labels) > 0 {
		c.must(t, "", args...)
	}
	r.pin()
	for i := range wf.Spec.Templates {
		if c := wf.Spec.Templates[i].Container; c != nil {
			r.secretsOf(t, c.Env)
			shrink(&c.Resources)
		}
	}
	for _, v := range wf.Spec.Volumes {
		if v.PersistentVolumeClaim != nil && !strings.Contains(v.PersistentVolumeClaim.ClaimName, "{{") {
			r.claim(t, v.PersistentVolumeClaim.ClaimName, corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany}}, claimMake)
		}
	}
	for _, vct := range wf.Spec.VolumeClaimTemplates {
		// Argo names a template's claim <workflow>-<template>.
		r.claim(t, wf.Name+"-"+vct.Name, vct.Spec, claimBind)
	}
	return r
}

// pin keeps every pod of the run on the real node, whose taint keeps the
// suite's KWOK pods off it, and off the KWOK nodes whose labels match.
func (r *realRun) pin() {
	tol := corev1.Toleration{Key: realNodeTaint, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}
	r.wf.Spec.Tolerations = append(r.wf.Spec.Tolerations, tol)
	if r.wf.Spec.NodeSelector == nil {
		r.wf.Spec.NodeSelector = map[string]string{}
	}
	r.wf.Spec.NodeSelector["kubernetes.io/hostname"] = realNode
	for i := range r.wf.Spec.Templates {
		tmpl := &r.wf.Spec.Templates[i]
		if tmpl.NodeSelector != nil {
			tmpl.NodeSelector["kubernetes.io/hostname"] = realNode
		}
		if len(tmpl.Tolerations) > 0 {
			tmpl.Tolerations = append(tmpl.Tolerations, tol)
		}
	}
}

// shrink scales a container's cpu and memory to what the real node holds
// (a step asking 4 cores would never start on 2); GPUs stay, since the
// node advertises them.
func shrink(res *corev1.ResourceRequirements) {
	for _, list := range []corev1.ResourceList{res.Requests, res.Limits} {
		if _, ok := list[corev1.ResourceCPU]; ok {
			list[corev1.ResourceCPU] = resource.MustParse("100m")
		}
		if _, ok := list[corev1.ResourceMemory]; ok {
			list[corev1.ResourceMemory] = resource.MustParse("256Mi")
		}
	}
}

// secretsOf creates the secret keys a container's env names, each with a
// value that holds a dollar and quotes.
func (r *realRun) secretsOf(t *testing.T, env []corev1.EnvVar) {
	t.Helper()
	for _, e := range env {
		if e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil {
			continue
		}
		ref := e.ValueFrom.SecretKeyRef
		id := ref.Name + "/" + ref.Key
		if _, ok := r.secrets[id]; ok {
			continue
		}
		r.secrets[id] = fmt.Sprintf(`secret %s: $USER "x" 'y'`, id)
		patch, _ := json.Marshal(map[string]any{"stringData": map[string]string{ref.Key: r.secrets[id]}})
		if _, err := r.c.run("", "-n", r.ns, "get", "secret", ref.Name); err != nil {
			r.c.must(t, "", "-n", r.ns, "create", "secret", "generic", ref.Name)
		}
		r.c.must(t, "", "-n", r.ns, "patch", "secret", ref.Name, "--type=merge", "-p", string(patch))
	}
}

// How claim provides for a claim: claimMake makes it (a claim the platform
// names exists before the run); claimBind binds the volume to the claim of
// that name the run makes; claimOffer leaves the volume for whichever
// claim of its class asks first (Tekton names a run's claims itself).
const (
	claimMake = iota
	claimBind
	claimOffer
)

// claim makes a local volume on the real node for a claim, in a folder
// under .e2e/run/volumes.
func (r *realRun) claim(t *testing.T, name string, spec corev1.PersistentVolumeClaimSpec, how int) {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join(repoRoot, ".e2e", "run", "volumes", r.ns, name))
	if err != nil {
		t.Fatal(err)
	}
	// A volume left by an earlier run of the suite on this cluster is
	// Released, and cannot bind again: it goes, with its files.
	pvName := r.ns + "-" + name
	r.c.must(t, "", "-n", r.ns, "delete", "pvc", name, "--ignore-not-found", "--timeout=60s")
	r.c.must(t, "", "delete", "pv", pvName, "--ignore-not-found", "--timeout=60s")
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	r.volumes[name] = dir
	modes := spec.AccessModes
	if len(modes) == 0 {
		modes = []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}
	}
	class := ""
	if spec.StorageClassName != nil {
		class = *spec.StorageClassName
	}
	pv := map[string]any{
		"apiVersion": "v1", "kind": "PersistentVolume",
		"metadata": map[string]any{"name": pvName},
		"spec": map[string]any{
			"capacity":                      map[string]string{"storage": "100Gi"},
			"accessModes":                   modes,
			"persistentVolumeReclaimPolicy": "Retain",
			"storageClassName":              class,
			"local":                         map[string]string{"path": dir},
			"nodeAffinity": map[string]any{"required": map[string]any{"nodeSelectorTerms": []any{map[string]any{
				"matchExpressions": []any{map[string]any{"key": "kubernetes.io/hostname", "operator": "In", "values": []string{realNode}}},
			}}}},
		},
	}
	if how != claimOffer {
		pv["spec"].(map[string]any)["claimRef"] = map[string]string{"namespace": r.ns, "name": name}
	}
	manifest, _ := yaml.Marshal(pv)
	r.c.ensure(t, string(manifest))
	if how == claimMake {
		pvc := fmt.Sprintf("apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: %s, namespace: %s}\nspec: {accessModes: [%s], storageClassName: %q, resources: {requests: {storage: 1Gi}}}\n",
			name, r.ns, modes[0], class)
		r.c.ensure(t, pvc)
	}
}

// record is what scripts/e2e/image/record wrote for one container.
type record struct {
	Pod     string                                  `json:"pod"`
	Argv    []string                                `json:"argv"`
	Env     map[string]string                       `json:"env"`
	UID     int                                     `json:"uid"`
	GID     int                                     `json:"gid"`
	Groups  []int                                   `json:"groups"`
	Volumes map[string]map[string]map[string]string `json:"volumes"`
	Modes   map[string]struct{ UID, GID int }       `json:"modes"`
	Inputs  map[string]map[string]map[string]string `json:"inputs"`
	Outputs []string                                `json:"outputs"`
	// MPI is set for a rank under mpirun: its number, the world's size,
	// and the sum of every rank's number the allreduce gave it.
	MPI *struct{ Rank, Size, Sum int } `json:"mpi"`
}

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
func (r *realRun) wantEnv(env []corev1.EnvVar, expand func(string) string, configs map[string]string) map[string]string {
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
	return slices.ContainsFunc(r.golden.Spec.VolumeClaimTemplates, func(c corev1.PersistentVolumeClaim) bool { return c.Name == volume })
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
			if !slices.ContainsFunc(slices.Collect(maps.Values(files)), func(f map[string]string) bool { return f["text"] == mark }) {
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
