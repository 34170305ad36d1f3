//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	"github.com/minio/minio-go/v7"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// testFiles are the files the tests write and read back, by path, for a
// nonce: text, bytes no text holds (NUL, 0xff, a newline at the end and
// none), an empty file, a folder in a folder.
func testFiles(nonce string) map[string][]byte {
	return map[string][]byte{
		"file.txt":          []byte("the file " + nonce + "\n"),
		"folder/a.txt":      []byte("a " + nonce),
		"folder/sub/b.bin":  append([]byte{0, 1, 0xff, '\n'}, nonce...),
		"folder/sub/empty":  {},
		"folder/sub/c d.sh": []byte("#!/bin/sh\necho '" + nonce + "'\n"),
	}
}

// writeScript is POSIX sh that writes testFiles(nonce) under dir (the
// rclone image's sh is Debian's dash; upstream's is busybox's), each with
// printf and octal escapes, so that it needs no tool beyond the shell.
func writeScript(nonce, dir string) string {
	files := testFiles(nonce)
	var b strings.Builder
	fmt.Fprintf(&b, "set -eu\n")
	for _, p := range slices.Sorted(maps.Keys(files)) {
		fmt.Fprintf(&b, "mkdir -p '%s'\nprintf '", filepath.Dir(filepath.Join(dir, p)))
		for _, c := range files[p] {
			fmt.Fprintf(&b, "\\%03o", c)
		}
		fmt.Fprintf(&b, "' >'%s'\n", filepath.Join(dir, p))
	}
	return b.String()
}

// sha256s is what `find . -type f | sort | xargs sha256sum` (with the
// names quoted for the space) prints in a folder of files: the check the
// image's scripts make.
func sha256s(files map[string][]byte, under string) map[string]string {
	sums := map[string]string{}
	for p, data := range files {
		if rest, ok := strings.CutPrefix(p, under); ok {
			sum := sha256.Sum256(data)
			sums[rest] = hex.EncodeToString(sum[:])
		}
	}
	return sums
}

// newNonce is random hex, which names a run's objects.
func newNonce(t *testing.T) string {
	t.Helper()
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// artifactsWorkflow is a workflow of two steps on the real node, in its
// base image: write makes testFiles(nonce) and hands file.txt and folder/
// to Argo as output artifacts, not archived, at keys under
// {{workflow.uid}}/ (key-only artifacts: the rest of their location is the
// artifact repository's); read gets both as input artifacts from write's
// outputs, and the folder again by its key alone, and compares each file
// with what it writes itself.
func artifactsWorkflow(t *testing.T, name, ns, nonce string) *wfv1.Workflow {
	t.Helper()
	files := testFiles(nonce)
	var check strings.Builder
	check.WriteString(writeScript(nonce, "/tmp/want"))
	check.WriteString("cmp /tmp/want/file.txt /in/file.txt\n")
	for _, dir := range []string{"/in/folder", "/in/folder-by-key"} {
		// Every file there is the one written, and no other.
		fmt.Fprintf(&check, "(cd %s && find . -type f | LC_ALL=C sort) >/tmp/got.list\n", dir)
		fmt.Fprintf(&check, "(cd /tmp/want/folder && find . -type f | LC_ALL=C sort) >/tmp/want.list\n")
		fmt.Fprintf(&check, "cmp /tmp/want.list /tmp/got.list\n")
		for _, p := range slices.Sorted(maps.Keys(files)) {
			if rest, ok := strings.CutPrefix(p, "folder/"); ok {
				fmt.Fprintf(&check, "cmp '/tmp/want/folder/%s' '%s/%s'\n", rest, dir, rest)
			}
		}
	}
	check.WriteString("echo read: all files equal\n")
	write := writeScript(nonce, "/out") +
		"cd /out && find . -type f | LC_ALL=C sort | while read -r f; do sha256sum \"$f\"; done >/tmp/sums\ncat /tmp/sums\n"
	keyOnly := func(key string) wfv1.ArtifactLocation {
		return wfv1.ArtifactLocation{S3: &wfv1.S3Artifact{Key: "{{workflow.uid}}/" + key}}
	}
	none := &wfv1.ArchiveStrategy{None: &wfv1.NoneStrategy{}}
	container := func(script string) *corev1.Container {
		return &corev1.Container{
			Image: realImage, ImagePullPolicy: corev1.PullNever, Command: []string{"sh", "-c", script},
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceCPU: resource.MustParse("50m"), corev1.ResourceMemory: resource.MustParse("64Mi"),
			}},
		}
	}
	wf := &wfv1.Workflow{
		TypeMeta:   metav1.TypeMeta{APIVersion: "argoproj.io/v1alpha1", Kind: "Workflow"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: wfv1.WorkflowSpec{
			Entrypoint:   "main",
			NodeSelector: map[string]string{"kubernetes.io/hostname": realNode},
			Tolerations: []corev1.Toleration{{Key: realNodeTaint, Operator: corev1.TolerationOpExists,
				Effect: corev1.TaintEffectNoSchedule}},
			Templates: []wfv1.Template{
				{Name: "main", Steps: []wfv1.ParallelSteps{
					{Steps: []wfv1.WorkflowStep{{Name: "write", Template: "write"}}},
					{Steps: []wfv1.WorkflowStep{{Name: "read", Template: "read", Arguments: wfv1.Arguments{Artifacts: wfv1.Artifacts{
						{Name: "file", From: "{{steps.write.outputs.artifacts.file}}"},
						{Name: "folder", From: "{{steps.write.outputs.artifacts.folder}}"},
					}}}}},
				}},
				{
					Name: "write", Container: container(write),
					Outputs: wfv1.Outputs{
						Artifacts: wfv1.Artifacts{
							{Name: "file", Path: "/out/file.txt", Archive: none, ArtifactLocation: keyOnly("file.txt")},
							{Name: "folder", Path: "/out/folder", Archive: none, ArtifactLocation: keyOnly("folder")},
						},
						Parameters: []wfv1.Parameter{{Name: "sums", ValueFrom: &wfv1.ValueFrom{Path: "/tmp/sums"}}},
					},
				},
				{
					Name: "read", Container: container(check.String()),
					Inputs: wfv1.Inputs{Artifacts: wfv1.Artifacts{
						{Name: "file", Path: "/in/file.txt"},
						{Name: "folder", Path: "/in/folder"},
						{Name: "folder-by-key", Path: "/in/folder-by-key", ArtifactLocation: keyOnly("folder")},
					}},
				},
			},
		},
	}
	return wf
}

// TestE2EArgoArtifactsInObjectStore runs artifactsWorkflow on the real
// node with Argo's real executor against the cluster's object store,
// twice at once: in a namespace with no artifact repository of its own,
// through the controller's default (scripts/e2e/argo.sh), and in one with
// its artifact-repositories ConfigMap, whose endpoint is the store's
// Service name (the executors run in pods). Both must succeed (read compared
// every file), say which repository they used, and leave in the bucket
// exactly the objects write made, under the workflow's uid, each with the
// sha256 of the bytes written (and of what write's sha256sum printed).
// Its name puts it among the Argo tests that run.sh runs again on Argo 4.
func TestE2EArgoArtifactsInObjectStore(t *testing.T) {
	c := e2eCluster(t)
	s := e2eObjectStore(t)
	t.Parallel()
	for _, tc := range []struct {
		name string
		// configMap: the namespace has its own artifact repository.
		configMap bool
	}{{"controller-default", false}, {"namespace-configmap", true}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ns := "e2e-artifacts-" + strings.TrimPrefix(tc.name, "namespace-")
			if tc.configMap {
				// The key format is not used (every artifact names its
				// key): the namespace's repository is told from the
				// controller's by the workflow's status.
				s.artifactRepositories(t, c, ns, s.Service, "ns/{{workflow.name}}/{{pod.name}}")
			} else {
				s.credentials(t, c, ns)
				c.must(t, "", "-n", ns, "delete", "configmap", "artifact-repositories", "--ignore-not-found")
			}
			c.must(t, "", "-n", ns, "delete", "workflow", "artifacts", "--ignore-not-found")
			nonce := newNonce(t)
			wf := artifactsWorkflow(t, "artifacts", ns, nonce)
			manifest, err := yaml.Marshal(wf)
			if err != nil {
				t.Fatal(err)
			}
			created := strings.TrimSpace(c.must(t, string(manifest), "create", "-o", "name", "-f", "-"))
			done := c.wait(t, ns, created, 4*time.Minute)
			if done.Status.Phase != wfv1.WorkflowSucceeded {
				t.Fatalf("phase %s: %s\n%s", done.Status.Phase, done.Status.Message, nodeSummary(done))
			}
			ref := done.Status.ArtifactRepositoryRef
			switch {
			case ref == nil:
				t.Errorf("the workflow's status names no artifact repository")
			case tc.configMap && (ref.Default || ref.Namespace != ns || ref.ConfigMap != "artifact-repositories" ||
				ref.Key != "default"):
				t.Errorf("artifact repository %+v, want the key default of %s's artifact-repositories",
					ref.ArtifactRepositoryRef, ns)
			case !tc.configMap && !ref.Default:
				t.Errorf("artifact repository %+v, want the controller's default", ref.ArtifactRepositoryRef)
			}

			uid := string(done.UID)
			want := map[string]string{}
			for p, sum := range sha256s(testFiles(nonce), "") {
				want[uid+"/"+p] = sum
			}
			got := s.objects(t, uid+"/")
			if !maps.Equal(got, want) {
				t.Errorf("objects under %s/%s/:\n got %v\nwant %v", s.Bucket, uid, got, want)
			}
			// What write's own sha256sum printed, from its output parameter.
			var sums string
			for _, n := range done.Status.Nodes {
				if n.TemplateName != "write" || n.Outputs == nil {
					continue
				}
				for _, p := range n.Outputs.Parameters {
					if p.Name == "sums" && p.Value != nil {
						sums = p.Value.String()
					}
				}
			}
			printed := map[string]string{}
			for _, line := range strings.Split(strings.TrimSpace(sums), "\n") {
				if sum, path, ok := strings.Cut(line, "  ./"); ok {
					printed[uid+"/"+path] = sum
				}
			}
			if !maps.Equal(printed, want) {
				t.Errorf("write's sha256sum printed:\n%s\nwant %v", sums, want)
			}
			used := "the controller's default repository"
			if ref != nil && !ref.Default {
				used = fmt.Sprintf("the repository %s/%s#%s", ref.Namespace, ref.ConfigMap, ref.Key)
			}
			t.Logf("%s/%s: Succeeded in %s with %s; %d objects under %s/ with the bytes written",
				ns, done.Name, done.Status.FinishedAt.Sub(done.Status.StartedAt.Time), used, len(got), uid)
		})
	}
}

// TestE2EObjectStoreRclone runs the rclone image in a pod on the real
// node as our compiled steps do: the keys from the store's Secret into
// RCLONE_S3_*, an :s3: remote with no config file. upload (sh -c) writes
// testFiles and copies the folder to the bucket at the node's address;
// fetch runs the image's entrypoint, rclone, with arguments alone, copying
// the objects back into another folder from the store's Service name;
// check compares the two folders' listings and sha256s.
// The test then reads the objects itself. First, a request without keys
// must be refused.
func TestE2EObjectStoreRclone(t *testing.T) {
	c := e2eCluster(t)
	s := e2eObjectStore(t)
	t.Parallel()

	anonymous, err := s.connect("", "")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for o := range anonymous.ListObjectsIter(ctx, s.Bucket, minio.ListObjectsOptions{MaxKeys: 1}) {
		if o.Err == nil {
			t.Fatalf("a request without keys listed %s", o.Key)
		}
		if resp := minio.ToErrorResponse(o.Err); resp.StatusCode != 403 {
			t.Errorf("a request without keys: %v (HTTP %d), want 403", o.Err, resp.StatusCode)
		}
		break
	}

	const ns = "e2e-objectstore-rclone"
	s.credentials(t, c, ns)
	c.must(t, "", "-n", ns, "delete", "pod", "rclone", "--ignore-not-found", "--wait")
	nonce := newNonce(t)
	prefix := "rclone/" + nonce
	remote := fmt.Sprintf(":s3:%s/%s", s.Bucket, prefix)
	env := func(endpoint string) []map[string]any {
		return []map[string]any{
			{"name": "RCLONE_S3_PROVIDER", "value": "Other"},
			{"name": "RCLONE_S3_ENDPOINT", "value": "http://" + endpoint},
			{"name": "RCLONE_S3_REGION", "value": s.Region},
			{"name": "RCLONE_S3_ACCESS_KEY_ID",
				"valueFrom": map[string]any{"secretKeyRef": map[string]string{"name": s.Secret, "key": "accessKey"}}},
			{"name": "RCLONE_S3_SECRET_ACCESS_KEY",
				"valueFrom": map[string]any{"secretKeyRef": map[string]string{"name": s.Secret, "key": "secretKey"}}},
		}
	}
	listing := `find . -type f | LC_ALL=C sort | while read -r f; do sha256sum "$f"; done`
	container := func(name, endpoint string, command, args []string) map[string]any {
		c := map[string]any{
			"name": name, "image": s.Image, "imagePullPolicy": "Never", "env": env(endpoint),
			"volumeMounts": []map[string]string{{"name": "work", "mountPath": "/work"}},
			"resources":    map[string]any{"requests": map[string]string{"cpu": "50m", "memory": "64Mi"}},
		}
		if command != nil {
			c["command"] = command
		}
		c["args"] = args
		return c
	}
	pod := map[string]any{
		"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]string{"name": "rclone", "namespace": ns},
		"spec": map[string]any{
			"restartPolicy": "Never",
			"nodeSelector":  map[string]string{"kubernetes.io/hostname": realNode},
			"tolerations":   []map[string]string{{"key": realNodeTaint, "operator": "Exists", "effect": "NoSchedule"}},
			"volumes":       []map[string]any{{"name": "work", "emptyDir": map[string]any{}}},
			"initContainers": []map[string]any{
				container("upload", s.Endpoint, []string{"sh", "-c"}, []string{writeScript(nonce, "/work/up") +
					"rclone copy /work/up/folder " + remote + "\n(cd /work/up/folder && " + listing + ") >/work/up.sums\n"}),
				container("fetch", s.Service, nil, []string{"copy", remote, "/work/down"}),
			},
			"containers": []map[string]any{
				container("check", s.Endpoint, []string{"sh", "-c"},
					[]string{"set -eu\n(cd /work/down && " + listing + ") >/work/down.sums\n" +
						"cat /work/down.sums\ncmp /work/up.sums /work/down.sums\nrclone version | head -1\n"}),
			},
		},
	}
	manifest, _ := json.Marshal(pod)
	c.must(t, string(manifest), "create", "-f", "-")
	phase := waitForAny(t, 3*time.Minute, func() string {
		p, _ := c.run("", "-n", ns, "get", "pod", "rclone", "-o", "jsonpath={.status.phase}")
		if p == "Succeeded" || p == "Failed" {
			return p
		}
		return ""
	})
	logs := map[string]string{}
	for _, name := range []string{"upload", "fetch", "check"} {
		logs[name], _ = c.run("", "-n", ns, "logs", "rclone", "-c", name)
	}
	if phase != "Succeeded" {
		status, _ := c.run("", "-n", ns, "get", "pod", "rclone", "-o", "jsonpath={.status}")
		t.Fatalf("pod rclone %s\nstatus: %s\nlogs: %v", phase, status, logs)
	}
	if !strings.Contains(logs["check"], "rclone v") {
		t.Errorf("check printed no rclone version:\n%s", logs["check"])
	}
	want := map[string]string{}
	for p, sum := range sha256s(testFiles(nonce), "folder/") {
		want[prefix+"/"+p] = sum
	}
	got := s.objects(t, prefix+"/")
	if !maps.Equal(got, want) {
		t.Errorf("objects under %s/%s/:\n got %v\nwant %v", s.Bucket, prefix, got, want)
	}
	var printed bytes.Buffer
	for _, p := range slices.Sorted(maps.Keys(want)) {
		fmt.Fprintf(&printed, "%s  ./%s\n", want[p], strings.TrimPrefix(p, prefix+"/"))
	}
	if !strings.Contains(logs["check"], printed.String()) {
		t.Errorf("check printed:\n%s\nwant the lines:\n%s", logs["check"], printed.String())
	}
	t.Logf("rclone %s: %d objects up and back in pod rclone (upload, fetch by the entrypoint, check)", remote, len(got))
}
