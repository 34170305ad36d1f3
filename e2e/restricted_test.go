//go:build e2e

package e2e

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// ownUserImage is the real node's image as its own non-root user, uid
// 1000 (scripts/e2e/images.sh, mlcube-e2e/user:1): an image whose USER
// is not root. Argo's controller finds no entrypoint of it in its image
// index (scripts/e2e/argo.sh), so it runs only steps that have a command.
const ownUserImage = "mlcube-e2e/user:1"

// compileWith compiles example name (or the cube in folder name, when
// absolute) for backend with the real node's platform for image, extra
// laid over it, and args.
func compileWith(t *testing.T, name, backend, image string, extra map[string]any, args ...string) []string {
	t.Helper()
	dir := filepath.Join(repoRoot, "examples", name)
	if filepath.IsAbs(name) {
		dir = name
	}
	ex := exampleArgs(dir)
	i := slices.Index(ex, "--platform")
	from := ""
	if i >= 0 {
		from = ex[i+1]
	}
	file := realNodePlatform(t, from, image)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	plat := map[string]any{}
	if err := yaml.Unmarshal(data, &plat); err != nil {
		t.Fatal(err)
	}
	maps.Copy(plat, extra)
	if data, err = yaml.Marshal(plat); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if i >= 0 {
		ex[i+1] = file
	} else {
		ex = append(ex, "--platform", file)
	}
	out, stderr, code := compileArgs(t,
		append(append([]string{"mlcube-compile", "--backend", backend}, ex...), args...)...)
	if code != 0 {
		t.Fatalf("compile %s for %s: exit %d: %s", name, backend, code, stderr)
	}
	return strings.Split(strings.TrimSuffix(out, "\n"), "\n---\n")
}

// ownUserCube is examples/bucket-pipeline with an entrypoint for each
// task, in a folder of the test's: so that Argo needs no entrypoint of
// ownUserImage from its image index, which its controller reads once, as
// it starts (entrypoint.New, workflow/controller/controller.go, v3.7.18).
func ownUserCube(t *testing.T) string {
	t.Helper()
	src := filepath.Join(repoRoot, "examples", "bucket-pipeline")
	dir := filepath.Join(t.TempDir(), "bucket-pipeline")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"mlcube.yaml", "pipeline.yaml", "platform.yaml"} {
		data, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if f == "mlcube.yaml" {
			for _, task := range []string{"prepare", "train", "evaluate"} {
				data = []byte(strings.Replace(string(data), "  "+task+":\n",
					"  "+task+":\n    entrypoint: /usr/local/bin/mlcube-e2e-record\n", 1))
			}
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// lockedRun is one run of TestE2ERealNodeRestricted: an example, the
// image its steps run, and the platform settings laid over the real
// node's.
type lockedRun struct {
	name, example, image string
	platform             map[string]any
}

// enforce labels namespace ns with the Pod Security level the run asks
// for, restricted or else privileged, and returns it.
func (run lockedRun) enforce(t *testing.T, c *cluster, ns string) string {
	t.Helper()
	level := "privileged"
	if run.platform["podSecurity"] == "restricted" {
		level = "restricted"
	}
	c.must(t, "", "label", "namespace", ns, "pod-security.kubernetes.io/enforce="+level, "--overwrite")
	return level
}

// lockedRuns are the runs of TestE2ERealNodeRestricted and
// TestE2ETektonRestricted: each example that complies and runs on the real
// node as it is, in image (the suite's, which runs as root, so the
// platform gives it a user, and an fsGroup where steps write a claim),
// compiled with podSecurity: restricted and the settings extra; the cube
// of the image that runs as its own user, restricted; and that image with
// runAsNonRoot alone.
func lockedRuns(t *testing.T, image string, extra map[string]any) []lockedRun {
	t.Helper()
	restricted := func(sc map[string]any) map[string]any {
		out := map[string]any{"podSecurity": "restricted"}
		maps.Copy(out, extra)
		if sc != nil {
			out["securityContext"] = sc
		}
		return out
	}
	bucket := map[string]any{"runAsUser": 1000, "runAsGroup": 1000}
	claim := map[string]any{"runAsUser": 1000, "fsGroup": 1000}
	own := ownUserCube(t)
	return []lockedRun{
		{"locked-bucket", "bucket-pipeline", image, restricted(bucket)},
		{"locked-mnist-bucket", "mnist-bucket", image, restricted(bucket)},
		{"locked-mnist", "mnist", image, restricted(claim)},
		{"locked-countdown", "countdown", image, restricted(claim)},
		{"locked-single-gpu", "single-gpu-task", image, restricted(claim)},
		{"locked-two-cube", "two-cube-pipeline", image, restricted(claim)},
		{"locked-medperf-style", "medperf-style", image, restricted(claim)},
		{"locked-own-user", own, ownUserImage, restricted(nil)},
		{"nonroot-own-user", own, ownUserImage, map[string]any{"securityContext": map[string]any{"runAsNonRoot": true}}},
	}
}

// TestE2ERealNodeRestricted runs examples on Argo in namespaces whose
// Pod Security admission enforces restricted
// (pod-security.kubernetes.io/enforce), compiled with podSecurity:
// restricted: every pod, the compiler's steps and helpers and Argo's
// executor containers, is admitted, and the run succeeds (issue 49,
// point 14). The suite's image runs as root, so a platform gives it a
// user, as a user of such an image would, and an fsGroup where steps
// write a claim; the user image runs as its own user (runAsNonRoot, no
// runAsUser), whose movers and executor containers run as users of their
// own (point 5). The examples: every one that complies and runs on the
// real node as it is (on a claim, in the bucket, two cubes, a GPU limit,
// MedPerf's layout); resnet50's MPIJob and torch-ddp's TrainJob run in
// TestE2ERealNodeRestrictedJobs. Not run here: dask-benchmark, which the
// compile refuses (MLC362, its setup packages), the legacy cube, whose
// platform is MLCube's docker platform, the DRA examples and
// mixed-storage, which need the driver's claims and Argo's artifact
// repository their own tests set up.
func TestE2ERealNodeRestricted(t *testing.T) {
	t.Parallel()
	c, s := e2eCluster(t), e2eObjectStore(t)
	seedBucket(t, s)
	for _, run := range lockedRuns(t, realImage, nil) {
		t.Run(run.name, func(t *testing.T) {
			t.Parallel()
			docs := compileWith(t, run.example, "argo", run.image, run.platform)
			forgetArtifactGC(c, "e2e-real-"+run.name, run.name)
			r := c.newRealRun(t, run.name, docs, decodeWorkflow(t, docs[len(docs)-1]))
			s.credentials(t, c, r.ns)
			enforce := run.enforce(t, c, r.ns)
			pinArtifactGC(r.wf)
			done := r.succeed(t, 8*time.Minute)
			users := map[string]bool{}
			for _, pod := range r.pods(t) {
				out := c.must(t, "", "-n", r.ns, "get", "pod", pod, "-o",
					`jsonpath={range .spec.initContainers[*]}{.name}={.securityContext.runAsUser} {end}`+
						`{range .spec.containers[*]}{.name}={.securityContext.runAsUser} {end}`)
				for _, f := range strings.Fields(out) {
					users[f] = true
				}
			}
			t.Logf("%s (%s, %s, enforce %s): Succeeded in %s; containers=runAsUser: %s", run.name, run.example, run.image,
				enforce, done.Status.FinishedAt.Sub(done.Status.StartedAt.Time), strings.Join(slices.Sorted(maps.Keys(users)), " "))
		})
	}
}

// TestE2EJobRestricted runs examples/bucket-pipeline's prepare
// task as a Job (--backend job) in a namespace that enforces restricted,
// in the image that runs as its own non-root user: its fetch and upload
// containers are admitted and run as users of their own (issue 49,
// points 5 and 14).
func TestE2EJobRestricted(t *testing.T) {
	t.Parallel()
	c, s := e2eCluster(t), e2eObjectStore(t)
	seedBucket(t, s)
	dir := filepath.Join(repoRoot, "examples", "bucket-pipeline")
	platform := realNodePlatform(t, filepath.Join(dir, "platform.yaml"), ownUserImage)
	data, err := os.ReadFile(platform)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(platform, append(data, "podSecurity: restricted\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := compileArgs(t, "mlcube-compile", "--backend", "job", "--mlcube", dir, "--platform", platform,
		"--task", "prepare")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	ns := "e2e-job-locked"
	s.credentials(t, c, ns)
	c.must(t, "", "label", "namespace", ns, "pod-security.kubernetes.io/enforce=restricted", "--overwrite")
	var job batchv1.Job
	if err := yaml.Unmarshal([]byte(out), &job); err != nil || job.Kind != "Job" {
		t.Fatalf("not a Job (%v):\n%s", err, out)
	}
	job.Namespace, job.Name, job.GenerateName = ns, "locked", ""
	c.must(t, "", "-n", ns, "delete", "job", job.Name, "--ignore-not-found", "--wait", "--cascade=foreground")
	spec := &job.Spec.Template.Spec
	spec.NodeSelector = map[string]string{"kubernetes.io/hostname": realNode}
	spec.Tolerations = append(spec.Tolerations,
		corev1.Toleration{Key: realNodeTaint, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule})
	for i := range spec.Containers {
		shrink(&spec.Containers[i].Resources)
	}
	for i := range spec.InitContainers {
		shrink(&spec.InitContainers[i].Resources)
	}
	manifest, err := json.Marshal(job)
	if err != nil {
		t.Fatal(err)
	}
	c.must(t, string(manifest), "create", "-f", "-")
	waitFor(t, 6*time.Minute, func() string {
		return c.jsonPath(t, ns, "job/locked",
			`{.status.conditions[?(@.type=="Complete")].status}{.status.conditions[?(@.type=="Failed")].message}`)
	}, "True")
	users := c.must(t, "", "-n", ns, "get", "pods", "-l", "batch.kubernetes.io/job-name=locked", "-o",
		`jsonpath={range .items[0].spec.initContainers[*]}{.name}={.securityContext.runAsUser} {end}{range `+
			`.items[0].spec.containers[*]}{.name}={.securityContext.runAsUser} {end}`)
	t.Logf("Job locked completed in a restricted namespace; containers=runAsUser: %s", users)
}

// TestE2ERealNodeRestrictedJobs runs the distributed examples on Argo in
// namespaces that enforce restricted, compiled with podSecurity:
// restricted: resnet50-multinode's MPIJob (its launcher and workers,
// whose sshd runs as the platform's user 1000 with every capability
// dropped) and torch-ddp's TrainJob (its node pods, locked down through
// the runtime patch, as user 1000 since the suite's image runs as root;
// the kubectl step that creates and waits for it);
// each run succeeds (issue 49, point 14).
func TestE2ERealNodeRestrictedJobs(t *testing.T) {
	t.Parallel()
	c := e2eCluster(t)
	t.Run("mpi", func(t *testing.T) {
		t.Parallel()
		docs := compileWith(t, "resnet50-multinode", "argo", realImage, map[string]any{"podSecurity": "restricted"})
		r := c.newRealRun(t, "locked-mpi", docs, decodeWorkflow(t, docs[len(docs)-1]))
		r.pinJobs(t)
		c.must(t, "", "label", "namespace", r.ns, "pod-security.kubernetes.io/enforce=restricted", "--overwrite")
		done := r.succeed(t, 8*time.Minute)
		t.Logf("resnet50-multinode: Succeeded in %s in a namespace enforcing restricted",
			done.Status.FinishedAt.Sub(done.Status.StartedAt.Time))
	})
	t.Run("torch", func(t *testing.T) {
		t.Parallel()
		needTorchExample(t, "argo")
		docs := compileWith(t, torchExample, "argo", realImage, map[string]any{"podSecurity": "restricted",
			"securityContext": map[string]any{"runAsUser": 1000, "runAsGroup": 1000, "fsGroup": 1000}})
		r := c.newRealRun(t, "locked-torch", docs, decodeWorkflow(t, docs[len(docs)-1]))
		manifest := argoCreated(t, r.wf, "TrainJob")
		*manifest = trainJobOnRealNode(t, *manifest, r.ns)
		c.must(t, "", "label", "namespace", r.ns, "pod-security.kubernetes.io/enforce=restricted", "--overwrite")
		done := r.succeed(t, 8*time.Minute)
		t.Logf("torch-ddp: Succeeded in %s in a namespace enforcing restricted",
			done.Status.FinishedAt.Sub(done.Status.StartedAt.Time))
	})
}
