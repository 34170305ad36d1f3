//go:build e2e

package e2e

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// MedPerf's BraTS2024 data_prep and dummy_model (mlcube/mlcube.yaml, in
// ../shared/cubes-src), whose images run as USER nonrootuser: a name,
// uid 1000 on their Debian base. With runAsNonRoot, which Pod Security's
// restricted level requires, the kubelet refuses to start a container
// whose image's user is not a number unless the pod gives runAsUser
// (verifyRunAsNonRoot, pkg/kubelet/kuberuntime/security_context_others.go):
// the compiler cannot see an image's user, so the platform gives the
// number, as its user would.
const (
	bratsSrc   = "medperf/examples/BraTS2024"
	bratsClaim = "brats"
	bratsUID   = 1000
)

var bratsCubes = map[string]string{
	"data_prep/mlcube/mlcube.yaml":   "cube-brats-prep",
	"dummy_model/mlcube/mlcube.yaml": "cube-brats-dummy-model",
}

// bratsImages maps the image each cube's spec names to the node's image
// of it, as chestXRayImages does.
func bratsImages(t *testing.T, onNode bool) map[string]string {
	t.Helper()
	images := map[string]string{}
	for spec, name := range bratsCubes {
		to := "mlcube-e2e/" + name + ":1"
		if onNode {
			to = nodeCubeImage(t, name)
		}
		images[specImage(t, filepath.Join(bratsSrc, spec))] = to
	}
	return images
}

// bratsPipeline writes the pathology task's pipeline: data_prep's
// prepare, sanity_check and statistics, then dummy_model's infer; each
// cube reads its own parameters-path.yaml (task: pathology), where the
// cubes' default is parameters.yaml, which neither ships.
func bratsPipeline(t *testing.T) string {
	t.Helper()
	src := filepath.Join(sharedCubesSrc(t), bratsSrc)
	text := fmt.Sprintf(`name: brats-pathology
cubes:
  prep: %s
  model: %s
steps:
  prepare:
    cube: prep
    task: prepare
    inputs: {data_path: input_data/, labels_path: input_labels/, parameters_file: prep/parameters-path.yaml}
  sanity-check:
    cube: prep
    task: sanity_check
    inputs: {parameters_file: prep/parameters-path.yaml}
  statistics:
    cube: prep
    task: statistics
    after: [sanity-check]
    inputs: {parameters_file: prep/parameters-path.yaml}
  infer:
    cube: model
    task: infer
    after: [sanity-check]
    inputs: {parameters_file: model/parameters-path.yaml}
`, filepath.Join(src, "data_prep", "mlcube", "mlcube.yaml"), filepath.Join(src, "dummy_model", "mlcube", "mlcube.yaml"))
	dir := t.TempDir()
	writeFiles(t, dir, map[string][]byte{"pipeline.yaml": []byte(text)})
	return filepath.Join(dir, "pipeline.yaml")
}

// bratsSteps in an order that runs each after what it reads.
var bratsSteps = []string{"prepare", "sanity-check", "statistics", "infer"}

// bratsPlatform is the platform of a restricted run: podSecurity
// restricted, the images' user by its number (and its group, which
// owns the claim's files: fsGroup), and on Tekton the setting that says
// its set-security-context flag is on.
func bratsPlatform(t *testing.T, kubectl string, tekton bool) string {
	t.Helper()
	plat := map[string]any{
		"storage":         map[string]any{"pvc": bratsClaim},
		"podSecurity":     "restricted",
		"securityContext": map[string]any{"runAsUser": bratsUID, "runAsGroup": bratsUID, "fsGroup": bratsUID},
	}
	if tekton {
		plat["tekton"] = map[string]any{"setSecurityContext": true}
	}
	return cubePlatform(t, kubectl, plat)
}

// bratsData is four subjects of the pathology task, PNGs named as the
// challenge's (BraTSPath_<cohort>_<7 digits>.png) of seeded random
// pixels, and one labels CSV (its format is not described upstream: the
// cubes only copy it); and each cube's own parameters file.
func bratsData(t *testing.T) map[string][]byte {
	t.Helper()
	rng := rand.New(rand.NewPCG(50, 2024))
	files := map[string][]byte{}
	csv := "SubjectID,Label\n"
	for i := 1; i <= 4; i++ {
		img := image.NewNRGBA(image.Rect(0, 0, 16, 16))
		for p := range img.Pix {
			img.Pix[p] = uint8(rng.IntN(256))
		}
		var buf bytes.Buffer
		if err := png.Encode(&buf, img); err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("BraTSPath_Val_%07d.png", i)
		files["input_data/"+name] = buf.Bytes()
		csv += fmt.Sprintf("%s,%d\n", name, i%6)
	}
	files["input_labels/labels.csv"] = []byte(csv)
	files["prep/parameters-path.yaml"] = readShared(t,
		filepath.Join(bratsSrc, "data_prep", "mlcube", "workspace", "parameters-path.yaml"))
	files["model/parameters-path.yaml"] = readShared(t,
		filepath.Join(bratsSrc, "dummy_model", "mlcube", "workspace", "parameters-path.yaml"))
	return files
}

// checkBraTS checks what the run left on the claim: prepare's copies of
// the PNGs and the labels CSV, statistics' count, dummy_model's
// predictions (random, so their format: each subject once, a class 0 to
// 5), each file written by uid 1000, the images' user.
func checkBraTS(t *testing.T, what, dir string, files map[string][]byte) {
	t.Helper()
	var subjects []string
	for name, data := range files {
		rel, ok := strings.CutPrefix(name, "input_data/")
		if !ok {
			continue
		}
		subjects = append(subjects, rel)
		if got := readClaim(t, dir, "data/"+rel); !bytes.Equal(got, data) {
			t.Errorf("%s: data/%s is not the input's copy", what, rel)
		}
		ownedBy(t, dir, "data/"+rel)
	}
	slices.Sort(subjects)
	if got := readClaim(t, dir, "labels/labels.csv"); !bytes.Equal(got, files["input_labels/labels.csv"]) {
		t.Errorf("%s: labels/labels.csv is not the input's copy", what)
	}
	if got, want := string(readClaim(t, dir, "statistics.yaml")),
		fmt.Sprintf("Number of Subjects: %d\n", len(subjects)); got != want {
		t.Errorf("%s: statistics.yaml holds %q, want %q", what, got, want)
	}
	preds := strings.Split(strings.TrimSpace(string(readClaim(t, dir, "predictions/predictions.csv"))), "\n")
	var ids []string
	for _, row := range preds[1:] {
		id, class, _ := strings.Cut(row, ",")
		if n, err := strconv.Atoi(class); err != nil || n < 0 || n > 5 {
			t.Errorf("%s: prediction %q is not a class of 0 to 5", what, row)
		}
		ids = append(ids, id)
	}
	slices.Sort(ids)
	if preds[0] != "SubjectID,Prediction" || !slices.Equal(ids, subjects) {
		t.Errorf("%s: predictions.csv is %q, want SubjectID,Prediction and a row of each of %v", what, preds, subjects)
	}
	for _, f := range []string{"statistics.yaml", "predictions/predictions.csv"} {
		ownedBy(t, dir, f)
	}
	t.Logf("%s: %d subjects copied, statistics %q, predictions %q; every output written by uid %d", what, len(subjects),
		strings.TrimSpace(string(readClaim(t, dir, "statistics.yaml"))), preds, bratsUID)
}

// ownedBy checks that a file of the claim was written by uid 1000.
func ownedBy(t *testing.T, dir, rel string) {
	t.Helper()
	info, err := os.Stat(filepath.Join(dir, rel))
	if err != nil {
		t.Fatal(err)
	}
	if st, ok := info.Sys().(*syscall.Stat_t); !ok || st.Uid != bratsUID {
		t.Errorf("%s is owned by uid %d, want the images' user %d", rel, st.Uid, bratsUID)
	}
}

// TestE2EArgoBraTSRestricted runs BraTS2024's pathology task on Argo
// (v3.7, and v4 when make e2e runs the Argo tests again) in a namespace
// whose Pod Security admission enforces restricted, compiled with
// podSecurity: restricted, the images' own code as their user, uid 1000
// (issue 50, point 2).
func TestE2EArgoBraTSRestricted(t *testing.T) {
	t.Parallel()
	c := e2eCluster(t)
	files := bratsData(t)
	docs := compileCubes(t, "argo", bratsPipeline(t), bratsPlatform(t, realImage, false), bratsImages(t, true))
	r := c.newRealRun(t, "brats", docs, decodeWorkflow(t, docs[len(docs)-1]))
	c.must(t, "", "label", "namespace", r.ns, "pod-security.kubernetes.io/enforce=restricted", "--overwrite")
	writeFiles(t, r.volumes[bratsClaim], files)
	done := r.succeed(t, 8*time.Minute)
	checkBraTS(t, "argo", r.volumes[bratsClaim], files)
	t.Logf("%s: Succeeded in %s in a namespace enforcing restricted", done.Name,
		done.Status.FinishedAt.Sub(done.Status.StartedAt.Time))
}

// TestE2ETektonBraTSRestricted runs it on Tekton as
// TestE2EArgoBraTSRestricted does on Argo, with tekton.setSecurityContext
// (the suite's Tekton has the flag on).
func TestE2ETektonBraTSRestricted(t *testing.T) {
	t.Parallel()
	c := e2eCluster(t)
	if flag := c.jsonPath(t, "tekton-pipelines", "configmap/feature-flags",
		"{.data.set-security-context}"); flag != "true" {
		t.Fatalf("Tekton's set-security-context is %q: scripts/e2e/tekton.sh turns it on", flag)
	}
	files := bratsData(t)
	docs := compileCubes(t, "tekton", bratsPipeline(t), bratsPlatform(t, tektonImage, true), bratsImages(t, true))
	r := c.newTektonRun(t, "brats", docs, decodePipelineRun(t, docs[len(docs)-1]))
	c.must(t, "", "label", "namespace", r.ns, "pod-security.kubernetes.io/enforce=restricted", "--overwrite")
	writeFiles(t, r.volumes[bratsClaim], files)
	done := r.runSucceeded(t, 8*time.Minute)
	checkBraTS(t, "tekton", r.volumes[bratsClaim], files)
	t.Logf("%s: Succeeded in %s in a namespace enforcing restricted", done.Name,
		done.Status.CompletionTime.Sub(done.Status.StartTime.Time))
}

// TestE2EJobBraTSRestricted runs it as a Job per step in a namespace
// that enforces restricted.
func TestE2EJobBraTSRestricted(t *testing.T) {
	t.Parallel()
	c := e2eCluster(t)
	files := bratsData(t)
	pipeline, platform, images := bratsPipeline(t), bratsPlatform(t, realImage, false), bratsImages(t, true)
	r := c.newJobRun(t, "e2e-job-brats", bratsClaim)
	c.must(t, "", "label", "namespace", r.ns, "pod-security.kubernetes.io/enforce=restricted", "--overwrite")
	writeFiles(t, r.volumes[bratsClaim], files)
	for _, step := range bratsSteps {
		r.runStepJob(t, compileCubes(t, "job", pipeline, platform, images, "--step", step), step, 6*time.Minute)
	}
	checkBraTS(t, "job", r.volumes[bratsClaim], files)
}
