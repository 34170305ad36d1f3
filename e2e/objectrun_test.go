//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	"github.com/minio/minio-go/v7"
	corev1 "k8s.io/api/core/v1"
)

// objectExamples are the examples whose data moves through the bucket:
// the generic real-node tests leave them to the tests of this file.
var objectExamples = []string{"bucket-pipeline", "mnist-bucket", "mixed-storage"}

// objectExample says whether an example runs on an object workspace.
func objectExample(name string) bool { return slices.Contains(objectExamples, name) }

// seeded are the inputs the examples read from the bucket and the
// mixed-storage example from its claim, by key.
var seeded = map[string]string{
	"raw/images.csv":    "id,label\n1,cat\n2,dog\n",
	"raw/more/notes.md": "raw data of the e2e suite\n",
	"mnist/data.yaml":   "url: https://example.invalid/mnist\n",
	"mnist/train.yaml":  "epochs: 1\n",
}

// seedBucket puts the inputs in the store's bucket.
func seedBucket(t *testing.T, s *objectStore) {
	t.Helper()
	for key, text := range seeded {
		s.put(t, key, []byte(text))
	}
}

// sha256Hex is the hex sha256 of b.
func sha256Hex(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// folderDigest is ir.FolderDigest's digest of the objects under prefix
// (each key's sha256): the sha256 of `sha256  ./path` lines, by path.
func folderDigest(objects map[string]string, prefix string) string {
	var lines []string
	for key, sum := range objects {
		if rel, ok := strings.CutPrefix(key, prefix); ok {
			lines = append(lines, sum+"  ./"+rel+"\n")
		}
	}
	sort.Slice(lines, func(i, j int) bool { return lines[i][66:] < lines[j][66:] })
	return sha256Hex([]byte(strings.Join(lines, "")))
}

// uploaded is one step's output as the bucket holds it, checked against
// the digest the engine recorded for it.
type uploaded struct {
	step, name, digest string
}

// checkUploads checks each upload in the bucket under <run>/: its
// objects' digest is the one the engine recorded, and each file is what
// the recorder wrote (written by the step's pod). It returns the keys.
func checkUploads(t *testing.T, objects map[string]string, run string, ups []uploaded, podOf func(step string) string,
	s *objectStore) {
	t.Helper()
	for _, u := range ups {
		base := run + "/" + u.step + "/" + u.name
		got := ""
		if sum, ok := objects[base]; ok {
			got = sum
		} else {
			got = folderDigest(objects, base+"/")
		}
		if got != u.digest || u.digest == "" {
			t.Errorf("%s: the bucket's objects digest to %s, the engine recorded %q", base, got, u.digest)
		}
		for key := range objects {
			if key != base && !strings.HasPrefix(key, base+"/") {
				continue
			}
			if text := string(s.get(t, key)); !strings.Contains(text, "written by "+podOf(u.step)) {
				t.Errorf("%s holds %q, not what step %s (pod %s) wrote", key, text, u.step, podOf(u.step))
			}
		}
	}
}

// compileObjectRun compiles an example for the real node with the tool
// image (rclone's, which has sh and sha256sum for Argo too), and checks
// that the output names no claim unless the example keeps data on one.
func compileObjectRun(t *testing.T, name, backend, image string) []string {
	t.Helper()
	docs := compileForRealNode(t, filepath.Join(repoRoot, "examples", name), backend, image)
	if name != "mixed-storage" {
		for _, d := range docs {
			if strings.Contains(strings.ToLower(d), "persistentvolumeclaim") || strings.Contains(d, "claimName") {
				t.Fatalf("%s names a claim:\n%s", name, d)
			}
		}
	}
	return docs
}

// TestE2EArgoObjectStorage runs the object storage examples to Succeeded
// on the real node with the suite's Argo controller (v3.7, and v4 when
// make e2e runs the Argo tests again): inputs fetched from the bucket
// (or, for mixed-storage, a claim), each step's outputs uploaded with
// their sha256 and fetched by the steps that read them, the final
// results in the bucket; every object's sha256 is checked against the
// digests Argo shows and what each step wrote.
func TestE2EArgoObjectStorage(t *testing.T) {
	t.Parallel()
	c, s := e2eCluster(t), e2eObjectStore(t)
	seedBucket(t, s)
	for _, name := range objectExamples {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			docs := compileObjectRun(t, name, "argo", realImage)
			want := decodeWorkflow(t, docs[len(docs)-1])
			forgetArtifactGC(c, "e2e-real-obj-"+name, "obj-"+name)
			r := c.newRealRun(t, "obj-"+name, docs, want)
			s.credentials(t, c, r.ns)
			if name == "mixed-storage" {
				s.artifactRepositories(t, c, r.ns, s.Service, "")
				r.claim(t, "datasets",
					corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}},
					claimMake)
				fillClaim(t, r.volumes["datasets"])
			}
			pinArtifactGC(r.wf)
			done := r.succeed(t, 8*time.Minute)
			pods := r.pods(t)
			podOf := func(step string) string { return pods[r.wf.Name+"."+step] }
			var ups []uploaded
			for _, task := range entryDAG(t, want).Tasks {
				n := taskNode(done, task.Name)
				if n == nil || n.Phase != wfv1.NodeSucceeded {
					t.Fatalf("task %s did not succeed:\n%s", task.Name, nodeSummary(done))
				}
				for _, a := range want.GetTemplateByName(task.Template).Outputs.Artifacts {
					ups = append(ups, uploaded{task.Name, a.Name, outputParam(n, a.Name+"-sha256")})
				}
			}
			if len(ups) == 0 {
				t.Fatal("no step uploads anything")
			}
			objects := s.objects(t, string(done.UID)+"/")
			checkUploads(t, objects, string(done.UID), ups, podOf, s)
			checkArgoReads(t, r, want, objects, string(done.UID))
			if want.Spec.ArtifactGC != nil {
				checkArtifactGC(t, r, s, string(done.UID), ups, want)
			}
			t.Logf("%s: Succeeded in %s; %d uploads, %d objects checked", name,
				done.Status.FinishedAt.Sub(done.Status.StartedAt.Time), len(ups), len(objects))
		})
	}
}

// outputParam is a node's output parameter's value, or "".
func outputParam(n *wfv1.NodeStatus, name string) string {
	if n.Outputs == nil {
		return ""
	}
	for _, p := range n.Outputs.Parameters {
		if p.Name == name && p.Value != nil {
			return p.Value.String()
		}
	}
	return ""
}

// fillClaim writes the seeded raw/ data onto a claim's local folder.
func fillClaim(t *testing.T, dir string) {
	t.Helper()
	for key, text := range seeded {
		if !strings.HasPrefix(key, "raw/") {
			continue
		}
		p := filepath.Join(dir, key)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// checkArgoReads checks, from each step's record (its container's log),
// that every input it read holds the bytes the bucket holds: the seeded
// raw data, or the uploads of the steps before it.
func checkArgoReads(t *testing.T, r *realRun, wf *wfv1.Workflow, objects map[string]string, run string) {
	t.Helper()
	pods := r.pods(t)
	want := map[string]string{} // sha256 of every file a step may read
	for key, text := range seeded {
		want[sha256Hex([]byte(text))] = key
	}
	for key, sum := range objects {
		want[sum] = key
	}
	for _, task := range entryDAG(t, wf).Tasks {
		cs := wf.GetTemplateByName(task.Template).ContainerSet
		if cs == nil {
			continue
		}
		user := "main"
		if cs.HasContainerNamed("run") {
			user = "run"
		}
		rec := logRecord(t, r, pods[r.wf.Name+"."+task.Name], user)
		read := 0
		for path, files := range rec.Inputs {
			for file, c := range files {
				if _, ok := want[c["sha256"]]; !ok {
					t.Errorf("task %s read %s (under %s), which neither the bucket nor the seeded data holds", task.Name, file, path)
				}
				read++
			}
		}
		if read == 0 {
			t.Errorf("task %s read no input file: %v", task.Name, rec.Argv)
		}
	}
}

// logRecord is the record the recorder printed in a container's log.
func logRecord(t *testing.T, r *realRun, pod, container string) record {
	t.Helper()
	out := r.c.must(t, "", "-n", r.ns, "logs", pod, "-c", container)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		var rec record
		line, _ := strings.CutPrefix(lines[i], "mlcube-e2e-record ")
		if json.Unmarshal([]byte(line), &rec) == nil && rec.Pod != "" {
			return rec
		}
	}
	t.Fatalf("pod %s container %s printed no record:\n%s", pod, container, out)
	return record{}
}

// String makes an uploaded readable in messages.
func (u uploaded) String() string { return fmt.Sprintf("%s/%s (%s)", u.step, u.name, u.digest) }

// put writes an object of the bucket.
func (s *objectStore) put(t *testing.T, key string, data []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := s.client.PutObject(ctx, s.Bucket, key, bytes.NewReader(data), int64(len(data)),
		minio.PutObjectOptions{}); err != nil {
		t.Fatalf("putting %s: %v", key, err)
	}
}

// get reads an object of the bucket.
func (s *objectStore) get(t *testing.T, key string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	obj, err := s.client.GetObject(ctx, s.Bucket, key, minio.GetObjectOptions{})
	if err != nil {
		t.Fatalf("getting %s: %v", key, err)
	}
	defer obj.Close()
	data, err := io.ReadAll(obj)
	if err != nil {
		t.Fatalf("reading %s: %v", key, err)
	}
	return data
}
