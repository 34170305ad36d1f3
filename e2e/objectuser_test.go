//go:build e2e

package e2e

import (
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

// userImage is the base image run as uid 1000, its own USER
// (scripts/e2e/images.sh): an image that runs as a user of its own.
const (
	userImage = "mlcube-e2e/user:1"
	userUID   = 1000
)

// TestE2EObjectStorageImageUser runs examples/bucket-pipeline on the
// real node with an image that runs as its own non-root user, while the
// containers that fetch (Argo's init and verify, Tekton's and the Job's
// fetch) run as root: on Argo v3.7 (and v4 when make e2e runs the Argo
// tests again), on Tekton, and as a Job (its prepare task). Each step
// reads every input it was given, the bucket's bytes, as uid 1000, and
// writes its outputs beside them. Argo loads an S3 folder with minio-go,
// which makes it 0700 and its files 0600: without the artifact's mode
// and verify's sharing, the step reads nothing there.
func TestE2EObjectStorageImageUser(t *testing.T) {
	t.Parallel()
	c, s := e2eCluster(t), e2eObjectStore(t)
	seedBucket(t, s)
	t.Run("argo", func(t *testing.T) {
		t.Parallel()
		docs := compileUserRun(t, "argo")
		want := decodeWorkflow(t, docs[len(docs)-1])
		forgetArtifactGC(c, "e2e-real-objuser", "objuser")
		r := c.newRealRun(t, "objuser", docs, want)
		s.credentials(t, c, r.ns)
		pinArtifactGC(r.wf)
		done := r.succeed(t, 8*time.Minute)
		objects := s.objects(t, string(done.UID)+"/")
		checkArgoReads(t, r, want, objects, string(done.UID))
		pods := r.pods(t)
		for _, task := range entryDAG(t, want).Tasks {
			if helperTask(task.Name) {
				continue
			}
			user := "main"
			if want.GetTemplateByName(task.Template).ContainerSet.HasContainerNamed("run") {
				user = "run"
			}
			if rec := logRecord(t, r, pods[r.wf.Name+"."+task.Name], user); rec.UID != userUID {
				t.Errorf("task %s ran as uid %d, want the image's %d", task.Name, rec.UID, userUID)
			}
		}
		if n := taskNode(done, "train"); n == nil || n.Phase != wfv1.NodeSucceeded {
			t.Errorf("train did not succeed:\n%s", nodeSummary(done))
		}
	})
	t.Run("tekton", func(t *testing.T) {
		t.Parallel()
		docs := compileUserRun(t, "tekton")
		r := c.newTektonRun(t, "objuser", docs, decodePipelineRun(t, docs[len(docs)-1]))
		s.credentials(t, c, r.ns)
		done := r.runSucceeded(t, 8*time.Minute)
		pods := r.tektonPods(t)
		checkTektonReads(t, r, pods, s.objects(t, string(done.UID)+"/"))
		for _, task := range r.golden.Spec.PipelineSpec.Tasks {
			if helperTask(task.Name) {
				continue
			}
			if rec := logRecord(t, r.realRun, pods[task.Name], "step-main"); rec.UID != userUID {
				t.Errorf("task %s ran as uid %d, want the image's %d", task.Name, rec.UID, userUID)
			}
		}
	})
	t.Run("job", func(t *testing.T) {
		t.Parallel()
		dir := userSpecs(t)
		platform := realNodePlatform(t, filepath.Join(dir, "platform.yaml"), userImage)
		out, stderr, code := compileArgs(t, "mlcube-compile", "--backend", "job", "--mlcube", dir, "--platform", platform,
			"--task", "prepare")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		ns := "e2e-job-objuser"
		s.credentials(t, c, ns)
		job := runJob(t, c, ns, "objuser", out, 6*time.Minute)
		pod := strings.TrimPrefix(strings.TrimSpace(c.must(t, "", "-n", ns, "get", "pods", "-l",
			"batch.kubernetes.io/job-name="+job, "-o", "name")), "pod/")
		r := &realRun{c: c, ns: ns}
		rec := logRecord(t, r, pod, "mlcube-container")
		if rec.UID != userUID {
			t.Errorf("the step ran as uid %d, want the image's %d", rec.UID, userUID)
		}
		read := 0
		for path, files := range rec.Inputs {
			for file, got := range files {
				key := "raw/" + strings.TrimPrefix(file, "/mnt/mlcube-fetched/raw-dir/")
				if got["sha256"] != sha256Hex([]byte(seeded[key])) {
					t.Errorf("the step read %s (under %s) as %v, not the bucket's %s", file, path, got, key)
				}
				read++
			}
		}
		if read == 0 {
			t.Errorf("the step read no input file: %v", rec.Argv)
		}
	})
}

// userSpecs is a copy of examples/bucket-pipeline whose tasks name
// their command (python <task>.py, the recorder in the suite's images):
// neither Argo nor Tekton then looks up the image's entrypoint, which
// Argo's controller reads from its images index only as it starts
// (entrypoint.New, workflow/controller/controller.go, v3.7.18).
func userSpecs(t *testing.T) string {
	t.Helper()
	from, dir := filepath.Join(repoRoot, "examples", "bucket-pipeline"), t.TempDir()
	for _, name := range []string{"mlcube.yaml", "pipeline.yaml", "platform.yaml"} {
		data, err := os.ReadFile(filepath.Join(from, name))
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		if name == "mlcube.yaml" {
			for _, task := range []string{"prepare", "train", "evaluate"} {
				text = strings.Replace(text, "\n  "+task+":\n", "\n  "+task+":\n    entrypoint: python "+task+".py\n", 1)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// compileUserRun compiles userSpecs for backend and the real node, its
// image userImage.
func compileUserRun(t *testing.T, backend string) []string {
	t.Helper()
	dir := userSpecs(t)
	args := []string{"mlcube-compile", "--backend", backend, "--mlcube", dir,
		"--task", filepath.Join(dir, "pipeline.yaml"),
		"--platform", realNodePlatform(t, filepath.Join(dir, "platform.yaml"), userImage)}
	out, stderr, code := compileArgs(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, "prepare.py") {
		t.Fatalf("the steps do not name their command:\n%s", out)
	}
	return strings.Split(strings.TrimSuffix(out, "\n"), "\n---\n")
}

// runJob creates the Job of manifest in namespace ns under name, pinned
// to the real node with its requests shrunk, and waits for it to
// complete; it returns its name.
func runJob(t *testing.T, c *cluster, ns, name, manifest string, timeout time.Duration) string {
	t.Helper()
	startJob(t, c, ns, name, manifest)
	if _, err := c.run("", "-n", ns, "wait", "--for=condition=Complete", "job/"+name,
		"--timeout="+timeout.String()); err != nil {
		t.Fatalf("job %s did not complete: %v\n%s\n%s", name, err, c.must(t, "", "-n", ns, "get", "jobs,pods", "-o", "wide"),
			c.must(t, "", "-n", ns, "describe", "pods"))
	}
	return name
}

// startJob creates the Job of manifest in namespace ns under name (one
// of that name an earlier run left goes first), pinned to the real node
// with its requests shrunk.
func startJob(t *testing.T, c *cluster, ns, name, manifest string) {
	t.Helper()
	var job batchv1.Job
	if err := yaml.Unmarshal([]byte(manifest), &job); err != nil || job.Kind != "Job" {
		t.Fatalf("not a Job (%v):\n%s", err, manifest)
	}
	job.Namespace, job.Name, job.GenerateName = ns, name, ""
	c.must(t, "", "-n", ns, "delete", "job", job.Name, "--ignore-not-found", "--wait", "--cascade=foreground")
	spec := &job.Spec.Template.Spec
	spec.NodeSelector = map[string]string{"kubernetes.io/hostname": realNode}
	spec.Tolerations = append(spec.Tolerations,
		corev1.Toleration{Key: realNodeTaint, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule})
	for _, cs := range [][]corev1.Container{spec.InitContainers, spec.Containers} {
		for i := range cs {
			shrink(&cs[i].Resources)
		}
	}
	data, err := yaml.Marshal(job)
	if err != nil {
		t.Fatal(err)
	}
	c.must(t, string(data), "create", "-f", "-")
}

// TestE2EObjectStorageSizedVolumes runs examples/bucket-pipeline on the
// real node on Argo, on Tekton and as a Job (its prepare task) with
// storage.size and
// storageClassName: every pod's workspace, scratch and fetched volumes
// are generic ephemeral volumes of that class, bound here to local
// volumes the test offers, and the fetched data lands on them (the raw
// data on the scratch and fetched volumes of prepare's pod), none of it
// on the node's own disk.
func TestE2EObjectStorageSizedVolumes(t *testing.T) {
	t.Parallel()
	c, s := e2eCluster(t), e2eObjectStore(t)
	seedBucket(t, s)
	for _, backend := range []string{"argo", "tekton", "job"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			// A class of each run's own: the volumes offered to one run and
			// left Available are not for another's claims.
			class := "e2e-movers-sized-" + backend
			docs := compileSized(t, backend, class)
			var r *realRun
			switch backend {
			case "job":
				r = &realRun{c: c, ns: "e2e-job-objsized", volumes: map[string]string{}}
				c.namespace(t, r.ns)
				c.must(t, "", "-n", r.ns, "delete", "job", "objsized", "--ignore-not-found", "--wait", "--cascade=foreground")
				offerSized(t, r, class)
				s.credentials(t, c, r.ns)
				runJob(t, c, r.ns, "objsized", docs[len(docs)-1], 6*time.Minute)
			case "argo":
				want := decodeWorkflow(t, docs[len(docs)-1])
				forgetArtifactGC(c, "e2e-real-objsized", "objsized")
				r = c.newRealRun(t, "objsized", docs, want)
				offerSized(t, r, class)
				s.credentials(t, c, r.ns)
				pinArtifactGC(r.wf)
				done := r.succeed(t, 8*time.Minute)
				checkArgoReads(t, r, want, s.objects(t, string(done.UID)+"/"), string(done.UID))
			default:
				tr := c.newTektonRun(t, "objsized", docs, decodePipelineRun(t, docs[len(docs)-1]))
				r = tr.realRun
				offerSized(t, r, class)
				s.credentials(t, c, r.ns)
				done := tr.runSucceeded(t, 8*time.Minute, "taskruns,pods,pvc")
				checkTektonReads(t, tr, tr.tektonPods(t), s.objects(t, string(done.UID)+"/"))
			}
			landed := map[string]bool{}
			for name, dir := range r.volumes {
				claim, _ := c.run("", "get", "pv", r.ns+"-"+name, "-o", "jsonpath={.spec.claimRef.name}")
				if _, err := os.Stat(filepath.Join(dir, "raw-dir", "images.csv")); err == nil {
					landed[claim[strings.LastIndex(claim, "-")+1:]] = true
				}
			}
			if !landed["scratch"] || !landed["fetched"] {
				t.Errorf("the raw data landed on the volumes of claims ending in %v, want the scratch and fetched volumes of "+
					"prepare's pod", landed)
			}
		})
	}
}

// compileSized compiles userSpecs for backend and the real node with
// storage.size and storageClassName class.
func compileSized(t *testing.T, backend, class string) []string {
	t.Helper()
	dir := userSpecs(t)
	plat := filepath.Join(dir, "platform.yaml")
	data, err := os.ReadFile(plat)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(data), "  workspace: object\n",
		"  workspace: object\n  size: 1Gi\n  storageClassName: "+class+"\n", 1)
	if err := os.WriteFile(plat, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	task := filepath.Join(dir, "pipeline.yaml")
	if backend == "job" {
		task = "prepare" // a Job runs one step
	}
	out, stderr, code := compileArgs(t, "mlcube-compile", "--backend", backend, "--mlcube", dir, "--task", task,
		"--platform", realNodePlatform(t, plat, realImage))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	return strings.Split(strings.TrimSuffix(out, "\n"), "\n---\n")
}

// offerSized offers local volumes of class for the run's ephemeral
// claims: prepare's pod has three, train's and evaluate's two each, and
// they run one after another. When the test ends, the run's pods go,
// and with them their claims, and the volumes, so that a later run
// offers them again.
func offerSized(t *testing.T, r *realRun, class string) {
	t.Helper()
	t.Cleanup(func() {
		for _, kind := range []string{"workflow", "pipelinerun", "job"} {
			_, _ = r.c.run("", "-n", r.ns, "delete", kind, "objsized", "--ignore-not-found", "--cascade=foreground",
				"--timeout=120s")
		}
		_, _ = r.c.run("", "-n", r.ns, "delete", "pods,pvc", "--all", "--timeout=120s")
		for name := range r.volumes {
			_, _ = r.c.run("", "delete", "pv", r.ns+"-"+name, "--ignore-not-found", "--timeout=60s")
		}
	})
	for i := range 8 {
		r.claim(t, "sized-"+string(rune('a'+i)), corev1.PersistentVolumeClaimSpec{StorageClassName: &class,
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}}, claimOffer)
	}
}
