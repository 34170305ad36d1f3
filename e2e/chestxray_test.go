//go:build e2e

package e2e

import (
	"fmt"
	"path/filepath"
	"testing"

	"sigs.k8s.io/yaml"
)

// The chest X-ray tutorial of MedPerf's HEAD (container_config.yaml), in
// ../shared/cubes-src, and the node's image of each of its cubes.
const chestXRaySrc = "medperf/examples/chestxray_tutorial"

var chestXRayCubes = map[string]string{
	"data_preparator":  "cube-chestxray-prep",
	"model_custom_cnn": "cube-chestxray-cnn",
	"metrics":          "cube-chestxray-metrics",
}

// chestXRayImages maps the image each cube's spec names to the node's
// image of it; with onNode false, to its name alone (a compile that runs
// nothing), else as nodeCubeImage gives it (skipping when the node lacks it).
func chestXRayImages(t *testing.T, onNode bool) map[string]string {
	t.Helper()
	images := map[string]string{}
	for cube, name := range chestXRayCubes {
		to := "mlcube-e2e/" + name + ":1"
		if onNode {
			to = nodeCubeImage(t, name)
		}
		images[specImage(t, filepath.Join(chestXRaySrc, cube, "container_config.yaml"))] = to
	}
	return images
}

// specImage is the image a cube's spec (under ../shared/cubes-src)
// names: a container_config.yaml's image, an mlcube.yaml's docker.image.
func specImage(t *testing.T, rel string) string {
	t.Helper()
	var spec struct {
		Image  string `json:"image"`
		Docker struct {
			Image string `json:"image"`
		} `json:"docker"`
	}
	if err := yaml.Unmarshal(readShared(t, rel), &spec); err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	if spec.Image == "" {
		spec.Image = spec.Docker.Image
	}
	if spec.Image == "" {
		t.Fatalf("%s names no image", rel)
	}
	return spec.Image
}

// chestXRayWeights is a cube of the test's, not MedPerf's: one task that
// makes the custom CNN's weights with the model cube's own code, in the
// model cube's image (models.SimpleCNN(1, 14), from a fixed seed, saved
// with torch.save, as the cube's README tells), into the volume the
// model's infer reads them from. The weights are not in MedPerf's
// repository (download.sh fetches them). As a first step of the
// pipeline, they reach infer by path as any output does, on a claim and
// through the bucket alike, on every engine.
func chestXRayWeights(t *testing.T, image string) string {
	t.Helper()
	code := `import sys, torch; sys.path.insert(0, "/project"); from models import SimpleCNN; ` +
		`torch.manual_seed(50); torch.save(SimpleCNN(1, 14).state_dict(), ` +
		`"/mlcommons/volumes/additional_files/cnn_weights.pth")`
	spec := fmt.Sprintf(`container_type: DockerImage
image: %s
tasks:
  weights:
    run_args:
      entrypoint: python3
      command: ["-c", %q]
    output_volumes:
      additional_files: {mount_path: /mlcommons/volumes/additional_files, type: directory}
`, image, code)
	dir := filepath.Join(t.TempDir(), "weights")
	writeFiles(t, dir, map[string][]byte{"container_config.yaml": []byte(spec)})
	return dir
}

// chestXRayInputs are the places of what the run reads and no step
// writes, in the workspace.
var chestXRayInputs = []string{"raw/images/", "raw/labels/", "prep/parameters.yaml", "model/parameters.yaml",
	"metrics/parameters.yaml"}

// chestXRayPipeline writes the tutorial's pipeline, with the custom CNN
// for its model, after examples/medperf-chestxray (whose mobilenetv2
// model needs tensorflow, which Debian lacks): the cubes are
// ../shared's, unchanged; in names where each input of chestXRayInputs
// is (its workspace path, or a URL).
func chestXRayPipeline(t *testing.T, in func(string) string) string {
	t.Helper()
	src := filepath.Join(sharedCubesSrc(t), chestXRaySrc)
	cnn := specImage(t, filepath.Join(chestXRaySrc, "model_custom_cnn", "container_config.yaml"))
	text := fmt.Sprintf(`name: chestxray-cnn
cubes:
  weights: %s
  prep: %s
  model: %s
  metrics: %s
steps:
  weights:
    cube: weights
    task: weights
    outputs: {additional_files: model/additional_files/}
  prepare:
    cube: prep
    task: prepare
    inputs: {data_path: %q, labels_path: %q, parameters_file: %q}
    outputs: {output_path: prepared/data/, output_labels_path: prepared/labels/}
  sanity-check:
    cube: prep
    task: sanity_check
    inputs: {data_path: prepared/data/, labels_path: prepared/labels/, parameters_file: %[7]q}
  statistics:
    cube: prep
    task: statistics
    after: [sanity-check]
    inputs: {data_path: prepared/data/, labels_path: prepared/labels/, parameters_file: %[7]q}
    outputs: {output_path: statistics/statistics.yaml}
  infer:
    cube: model
    task: infer
    after: [sanity-check]
    inputs: {data_path: prepared/data/, parameters_file: %q, additional_files: model/additional_files/}
    outputs: {output_path: predictions/}
    resources: {gpu: 1}
  evaluate:
    cube: metrics
    task: evaluate
    inputs: {predictions: predictions/, labels: prepared/labels/, parameters_file: %q}
    outputs: {output_path: results/results.yaml}
`, chestXRayWeights(t, cnn), filepath.Join(src, "data_preparator"), filepath.Join(src, "model_custom_cnn"),
		filepath.Join(src, "metrics"), in("raw/images/"), in("raw/labels/"), in("prep/parameters.yaml"),
		in("model/parameters.yaml"), in("metrics/parameters.yaml"))
	file := filepath.Join(t.TempDir(), "pipeline.yaml")
	writeFiles(t, filepath.Dir(file), map[string][]byte{"pipeline.yaml": []byte(text)})
	return file
}

// chestXRaySteps are the pipeline's steps in an order that runs each
// after what it reads (the Job per step runs them so).
var chestXRaySteps = []string{"weights", "prepare", "sanity-check", "statistics", "infer", "evaluate"}

// newChestXRayRun makes the dataset: 12 images of 32×32, of four labels
// of labels_list (read from the preparator's parameters.yaml), so that
// four of the fourteen columns hold both classes (metrics.py needs one);
// and the files each step reads, by their place in the workspace: the
// parameters files are each cube's own, from its workspace/ folder.
func newChestXRayRun(t *testing.T) (*chestXRayData, map[string][]byte) {
	t.Helper()
	prepParams := readShared(t, filepath.Join(chestXRaySrc, "data_preparator", "workspace", "parameters.yaml"))
	var params struct {
		LabelsList []string `json:"labels_list"`
	}
	if err := yaml.Unmarshal(prepParams, &params); err != nil || len(params.LabelsList) != 14 {
		t.Fatalf("the preparator's labels_list: %v (%d labels, want 14)", err, len(params.LabelsList))
	}
	d, err := newChestXRayData(params.LabelsList, 12, 32, []int{0, 1, 2, 6})
	if err != nil {
		t.Fatal(err)
	}
	metricsParams := readShared(t, filepath.Join(chestXRaySrc, "metrics", "workspace", "parameters.yaml"))
	var threshold struct {
		Threshold *float64 `json:"threshold"`
	}
	if err := yaml.Unmarshal(metricsParams, &threshold); err != nil || threshold.Threshold == nil {
		t.Fatalf("the metrics cube's threshold: %v", err)
	}
	d.threshold = *threshold.Threshold
	files := map[string][]byte{
		"prep/parameters.yaml": prepParams,
		"model/parameters.yaml": readShared(t,
			filepath.Join(chestXRaySrc, "model_custom_cnn", "workspace", "parameters.yaml")),
		"metrics/parameters.yaml": metricsParams,
	}
	for name, data := range d.files {
		files["raw/"+name] = data
	}
	return d, files
}

// chestXRayOut is what the run left: the files the test checks.
type chestXRayOut struct {
	results, predictions, statistics []byte
	labels                           map[string][]byte // prepared labels, by id
}

// claimOutputs reads the run's outputs from the claim's folder.
func claimOutputs(t *testing.T, dir string, d *chestXRayData) chestXRayOut {
	t.Helper()
	read := func(rel string) []byte { return readClaim(t, dir, rel) }
	out := chestXRayOut{
		results: read("results/results.yaml"), predictions: read("predictions/predictions.json"),
		statistics: read("statistics/statistics.yaml"), labels: map[string][]byte{},
	}
	for id := range d.truth {
		out.labels[id] = read(filepath.Join("prepared", "labels", id+".npy"))
	}
	return out
}

// check checks the run's outputs against the dataset, and recomputes the
// metrics from the model's predictions: results.yaml must hold what the
// metrics container computed from them, as the test recomputes it.
func (d *chestXRayData) check(t *testing.T, what string, out chestXRayOut) chestXRayMetrics {
	t.Helper()
	labels := map[string][]int64{}
	for id, data := range out.labels {
		v, err := npyInt64s(data)
		if err != nil {
			t.Fatalf("prepared label %s: %v", id, err)
		}
		if fmt.Sprint(v) != fmt.Sprint(d.oneHot(id)) {
			t.Errorf("prepared label %s is %v, want the one-hot %v of %s", id, v, d.oneHot(id), d.labels[d.truth[id]])
		}
		labels[id] = v
	}
	var stats struct {
		NumCases    int            `json:"num_cases"`
		LabelsCount map[string]int `json:"labels_count"`
	}
	if err := yaml.UnmarshalStrict(out.statistics, &stats); err != nil || stats.NumCases != len(d.truth) ||
		fmt.Sprint(stats.LabelsCount) != fmt.Sprint(d.counts()) {
		t.Errorf("statistics.yaml (%v): %s\nwant num_cases %d, labels_count %v", err, out.statistics,
			len(d.truth), d.counts())
	}
	var preds map[string][]float64
	if err := yaml.Unmarshal(out.predictions, &preds); err != nil || len(preds) != len(d.truth) {
		t.Fatalf("predictions.json (%v): %d predictions, want %d:\n%s", err, len(preds), len(d.truth), out.predictions)
	}
	for id, p := range preds {
		if len(p) != len(d.labels) {
			t.Fatalf("the prediction of %s has %d scores, want %d", id, len(p), len(d.labels))
		}
	}
	want, err := recomputeMetrics(preds, labels, d.threshold)
	if err != nil {
		t.Fatal(err)
	}
	got, err := parseMetrics(out.results)
	if err != nil {
		t.Fatalf("results.yaml: %v:\n%s", err, out.results)
	}
	if !near(got.Accuracy, want.Accuracy) || !near(got.AUC, want.AUC) {
		t.Fatalf("%s: results.yaml holds %+v, the predictions give %+v", what, got, want)
	}
	t.Logf("%s: results.yaml Accuracy %v AUC %v; recomputed from predictions.json and the labels: Accuracy %v AUC %v",
		what, got.Accuracy, got.AUC, want.Accuracy, want.AUC)
	return got
}

// near: sklearn's AUC sums trapezoids, the recomputation counts pairs;
// the two agree but for rounding.
func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }
