package job_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/mlcube-compile/mlcube-compile/backends/internal/kube"
	"github.com/mlcube-compile/mlcube-compile/compiler"
	"github.com/mlcube-compile/mlcube-compile/diag"
	"github.com/mlcube-compile/mlcube-compile/internal/enginetest"
	"github.com/mlcube-compile/mlcube-compile/internal/manifestcheck"
)

// rawSHA is the digest the one-step pipeline's input URL carries.
const rawSHA = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// prepareOnly is bucket-pipeline's prepare as a pipeline of its own,
// its raw data from the bucket, on a platform whose storage and object
// store are given.
func prepareOnly(t *testing.T, platform string) compiler.Options {
	cube := enginetest.Example(t, "bucket-pipeline")
	dir := enginetest.WriteFiles(t, map[string]string{
		"pipeline.yaml": "name: prepare-only\ncubes: {cube: " + cube + "}\nsteps:\n  prepare:\n    cube: cube\n" +
			"    task: prepare\n    inputs: {raw_dir: \"s3://mlcube-e2e/raw/#sha256=" + rawSHA + "\"}\n",
		"platform.yaml": platform,
	})
	return compiler.Options{Task: filepath.Join(dir, "pipeline.yaml"), Platform: filepath.Join(dir, "platform.yaml")}
}

const s3Store = "objectStore:\n  s3:\n    endpoint: seaweedfs.storage:8333\n    bucket: mlcube-e2e\n" +
	"    accessKeySecret: {name: s3-credentials, key: accessKey}\n" +
	"    secretKeySecret: {name: s3-credentials, key: secretKey}\n"

// names are the containers' names.
func names(cs []corev1.Container) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Name)
	}
	return out
}

// jobOf is the Job that opts compile to, checked as the cluster would.
func jobOf(t *testing.T, opts compiler.Options) *batchv1.Job {
	t.Helper()
	out := build(t, opts).Must(t)
	return manifestcheck.ValidateJob(t, "job", out.YAML(t))
}

// With an object workspace, the Job's pod fetches the step's input and
// checks its digest before the step's container, which runs as an init
// container so that the upload, the Job's container, follows it; the
// keys start with the Job's uid, from the label the API server gives its
// pods, and the step's name; no claim at all.
func TestJobMovesData(t *testing.T) {
	spec := jobOf(t, prepareOnly(t, "storage: {workspace: object}\n"+s3Store)).Spec.Template.Spec
	got, want := [][]string{names(spec.InitContainers), names(spec.Containers)},
		[][]string{{"fetch", "mlcube-container"}, {"upload"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("init containers, then containers (-want +got):\n%s", diff)
	}
	fetch, upload := spec.InitContainers[0], spec.Containers[0]
	if i := slices.Index(fetch.Args, "raw-dir"); i < 0 || !slices.Equal(fetch.Args[i:i+4],
		[]string{"raw-dir", kube.ScratchPath + "/raw-dir", rawSHA, "/mnt/mlcube-fetched/raw-dir"}) {
		t.Errorf("the fetch does not check raw-dir's digest into place: %q", fetch.Args)
	}
	if !slices.Contains(fetch.Args, "mlcube-e2e/raw/") {
		t.Errorf("the fetch does not fetch the bucket's raw/: %q", fetch.Args)
	}
	if !slices.Contains(upload.Args, "mlcube-e2e/$(MLCUBE_RUN_ID)/prepare/data-dir/") {
		t.Errorf("the upload's key is not the run's and the step's: %q", upload.Args)
	}
	if len(upload.Env) == 0 || upload.Env[0].Name != "MLCUBE_RUN_ID" ||
		upload.Env[0].ValueFrom.FieldRef.FieldPath != "metadata.labels['batch.kubernetes.io/controller-uid']" {
		t.Errorf("the upload's run id is not the Job's uid: %+v", upload.Env)
	}
	for _, c := range append(slices.Clone(spec.InitContainers), spec.Containers...) {
		for _, e := range c.Env {
			if e.Value != "" && strings.Contains(strings.ToLower(e.Name), "secret") {
				t.Errorf("%s: %s has a value, not a Secret's key", c.Name, e.Name)
			}
		}
	}
	for _, v := range spec.Volumes {
		if v.PersistentVolumeClaim != nil || v.Ephemeral != nil {
			t.Errorf("volume %s is a claim: %+v", v.Name, v.VolumeSource)
		}
	}
}

// A step that only fetches, its outputs on a claim, runs its container
// as the Job's, after the fetch.
func TestJobFetchesOnly(t *testing.T) {
	spec := jobOf(t, prepareOnly(t, "storage: {pvc: results}\n"+s3Store)).Spec.Template.Spec
	if got, want := names(spec.InitContainers), []string{"fetch"}; !slices.Equal(got, want) {
		t.Errorf("init containers %q, want %q", got, want)
	}
	if got, want := names(spec.Containers), []string{"mlcube-container"}; !slices.Equal(got, want) {
		t.Errorf("containers %q, want %q", got, want)
	}
}

// A platform naming only Argo's artifact repository gives rclone no
// bucket: the Job is refused, saying so, as one the engine does not run.
func TestJobRefusesArtifactRepository(t *testing.T) {
	out := build(t, prepareOnly(t, "storage: {workspace: object}\nobjectStore: {artifactRepositoryRef: {key: default}}\n"))
	if !out.Failed() || len(out.Shape) == 0 {
		t.Fatalf("not refused as a shape the Job does not run:\n%s", out.Stderr())
	}
	if d := out.Refused[0]; d.Code != diag.EngineCannotRun || !strings.Contains(d.Message, "name it in objectStore.s3") ||
		d.Field != "objectStore" {
		t.Errorf("refused with %v", d)
	}
}
