//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
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
	golden := filepath.Join(repoRoot, "testdata", "golden", backend, filepath.Base(dir)+".yaml")
	want := goldenDocuments(t, golden)
	got, asGolden := realNodeCompile(t, dir, backend, image, want)
	if asGolden {
		return got
	}
	if len(got) != len(want) {
		t.Fatalf("%d documents, the golden file has %d", len(got), len(want))
	}
	for i := range got {
		if g, w := withoutImages(t, got[i]), withoutImages(t, want[i]); !reflect.DeepEqual(g, w) {
			t.Fatalf("document %d differs from %s in more than images (regenerate the golden file?):\ngot:\n%s",
				i, golden, got[i])
		}
	}
	return got
}

// realNodeCompile compiles an example for backend as compileForRealNode
// does, with the flags extra, and says whether the documents are the
// golden file's own (want, a legacy cube's, run as they are).
func realNodeCompile(t *testing.T, dir, backend, image string, want []string, extra ...string) ([]string, bool) {
	t.Helper()
	args := exampleArgs(dir)
	i := slices.Index(args, "--platform")
	if i >= 0 && strings.HasSuffix(args[i+1], filepath.Join("platforms", "docker.yaml")) {
		// A legacy cube's --platform is MLCube's docker platform, which
		// has no image override: the node gets the image under the cube's
		// name, and the golden file runs as it is.
		for _, image := range imagesOf(t, want) {
			nodeCtr(t, "images", "tag", "--force", "docker.io/"+realImage, dockerReference(image))
		}
		return want, true
	}
	from := ""
	if i >= 0 {
		from = args[i+1]
	}
	file := realNodePlatform(t, from, image)
	if i >= 0 {
		args[i+1] = file
	} else {
		args = append(args, "--platform", file)
	}
	out, stderr, code := compileArgs(t, slices.Concat([]string{"mlcube-compile", "--backend", backend}, extra, args)...)
	if code != 0 {
		t.Fatalf("compile with the real node's platform: exit %d: %s", code, stderr)
	}
	return strings.Split(strings.TrimSuffix(out, "\n"), "\n---\n"), false
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
			// The provenance statement names the images, and the specs'
			// digest, of a platform the real node's image changed.
			if strings.Contains(v, `"_type": "https://in-toto.io/Statement/v1"`) {
				var st map[string]any
				if json.Unmarshal([]byte(v), &st) == nil {
					delete(st["predicate"].(map[string]any)["buildDefinition"].(map[string]any), "resolvedDependencies")
					return st
				}
			}
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
	r := &realRun{c: c, ns: ns, golden: golden, docs: docs, secrets: map[string]string{}, volumes: map[string]string{},
		params: map[string]string{}}
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
			r.claim(t, v.PersistentVolumeClaim.ClaimName,
				corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany}}, claimMake)
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
				"matchExpressions": []any{map[string]any{"key": "kubernetes.io/hostname", "operator": "In",
					"values": []string{realNode}}},
			}}}},
		},
	}
	if how != claimOffer {
		pv["spec"].(map[string]any)["claimRef"] = map[string]string{"namespace": r.ns, "name": name}
	}
	manifest, _ := yaml.Marshal(pv)
	r.c.ensure(t, string(manifest))
	if how == claimMake {
		pvc := fmt.Sprintf("apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: %s, namespace: %s}\n"+
			"spec: {accessModes: [%s], storageClassName: %q, resources: {requests: {storage: 1Gi}}}\n",
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
	// Torch is set for a rank under torchrun, likewise (trainjob_test.go).
	Torch *torchRanks `json:"torch"`
}
