//go:build e2e

package e2e

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// MedPerf's own test cubes (examples/tests of its HEAD, in
// ../shared/cubes-src): prep-sep adds its parameters' add to each
// number, model-cpu sums each line times its weight and times, metrics
// counts the predictions equal to the labels; model-bug writes all but
// its last prediction and then raises, unless the data is exactly its
// demo set. Each spec, by its file, and the node's image of the cube.
const medperfTestsSrc = "medperf/examples/tests"

var medperfTestCubes = map[string]string{
	"prep-sep/container_config.yaml":            "cube-medperf-prep-sep",
	"model-cpu/container_config_as_docker.yaml": "cube-medperf-model-cpu",
	"metrics/container_config.yaml":             "cube-medperf-metrics",
	"model-bug/container_config.yaml":           "cube-medperf-model-bug",
}

// medperfTestImages maps the image each test cube's spec names to the
// node's image of it, as chestXRayImages does.
func medperfTestImages(t *testing.T, onNode bool) map[string]string {
	t.Helper()
	images := map[string]string{}
	for spec, name := range medperfTestCubes {
		to := "mlcube-e2e/" + name + ":1"
		if onNode {
			to = nodeCubeImage(t, name)
		}
		images[specImage(t, filepath.Join(medperfTestsSrc, spec))] = to
	}
	return images
}

// medperfTestsPipeline writes the pipeline of MedPerf's test cubes, with
// model (model-cpu's container_config_as_docker.yaml, the one whose
// mounts its inference.py reads, or model-bug's spec) for its model.
// Output files end in their mount path's name, as the compiler requires
// of a file mounted by its folder (MLC553).
func medperfTestsPipeline(t *testing.T, model string) string {
	t.Helper()
	src := filepath.Join(sharedCubesSrc(t), medperfTestsSrc)
	text := fmt.Sprintf(`name: medperf-tests
cubes:
  prep: %s
  model: %s
  metrics: %s
steps:
  prepare:
    cube: prep
    task: prepare
    inputs: {data_path: raw/data/, labels_path: raw/labels/, parameters_file: prep/parameters.yaml}
    outputs: {output_path: data/, output_labels_path: labels/}
  sanity-check:
    cube: prep
    task: sanity_check
    inputs: {data_path: data/, labels_path: labels/, parameters_file: prep/parameters.yaml}
  statistics:
    cube: prep
    task: statistics
    after: [sanity-check]
    inputs: {data_path: data/, labels_path: labels/, parameters_file: prep/parameters.yaml}
    outputs: {output_path: statistics/medperf_statistics.yaml}
  infer:
    cube: model
    task: infer
    after: [sanity-check]
    inputs: {data_path: data/, parameters_file: model/parameters.yaml, additional_files: model/additional_files/}
    outputs: {output_path: predictions/}
  evaluate:
    cube: metrics
    task: evaluate
    inputs: {predictions: predictions/, labels: labels/, parameters_file: metrics/parameters.yaml}
    outputs: {output_path: results/medperf_results.yaml}
`, filepath.Join(src, "prep-sep"), filepath.Join(src, model), filepath.Join(src, "metrics"))
	dir := t.TempDir()
	writeFiles(t, dir, map[string][]byte{"pipeline.yaml": []byte(text)})
	return filepath.Join(dir, "pipeline.yaml")
}

// The steps in the order a Job per step runs them, and the steps that
// run after infer (none of which may run when infer fails).
var (
	medperfTestSteps = []string{"prepare", "sanity-check", "statistics", "infer", "evaluate"}
	afterInfer       = []string{"evaluate"}
)

// medperfTestsData are the inputs, by workspace path, as the cubes'
// README's smoke test had them: nums.txt "2 3 4\n9 0", weight 2, each
// cube's own parameters (add: 1, times: 1, num_classes: 7); the labels
// are the predictions those give, so that metrics counts both correct.
type medperfTestsData struct {
	nums               [][]int
	weight, add, times int
	numClasses         int
	files              map[string][]byte
}

func newMedperfTestsData(t *testing.T) *medperfTestsData {
	t.Helper()
	d := &medperfTestsData{nums: [][]int{{2, 3, 4}, {9, 0}}, weight: 2, files: map[string][]byte{}}
	read := func(rel string, into any) []byte {
		data := readShared(t, filepath.Join(medperfTestsSrc, rel))
		if err := yaml.Unmarshal(data, into); err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		return data
	}
	var prep struct{ Add int }
	var model struct{ Times int }
	var metrics struct {
		NumClasses int `json:"num_classes"`
	}
	d.files["prep/parameters.yaml"] = read("prep-sep/workspace/parameters.yaml", &prep)
	d.files["model/parameters.yaml"] = read("model-cpu/workspace/parameters1.yaml", &model)
	d.files["metrics/parameters.yaml"] = read("metrics/workspace/parameters.yaml", &metrics)
	d.add, d.times, d.numClasses = prep.Add, model.Times, metrics.NumClasses
	if d.add == 0 || d.times == 0 || d.numClasses == 0 {
		t.Fatalf("add %d, times %d, num_classes %d: the cubes' parameters changed?", d.add, d.times, d.numClasses)
	}
	var lines []string
	for _, line := range d.nums {
		lines = append(lines, strings.Trim(fmt.Sprint(line), "[]"))
	}
	d.files["raw/data/nums.txt"] = []byte(strings.Join(lines, "\n") + "\n")
	d.files["raw/labels/ans.txt"] = []byte(strings.Join(d.preds(), "\n") + "\n")
	d.files["model/additional_files/weights/weight.txt"] = []byte(strconv.Itoa(d.weight) + "\n")
	return d
}

// preds are model-cpu's predictions of the prepared data: the sum of
// each line, each number plus add, times weight and times.
func (d *medperfTestsData) preds() []string {
	var out []string
	for _, line := range d.nums {
		sum := 0
		for _, n := range line {
			sum += n + d.add
		}
		out = append(out, strconv.Itoa(sum*d.weight*d.times))
	}
	return out
}

// checkGood checks what a good run left on the claim: the predictions,
// and what metrics.py makes of them: every one correct, so error
// (incorrect / correct) is 0.0, and num_classes from its parameters.
func (d *medperfTestsData) checkGood(t *testing.T, what, dir string) {
	t.Helper()
	read := func(rel string) string { return string(readClaim(t, dir, rel)) }
	if got, want := read("predictions/preds.txt"), strings.Join(d.preds(), "\n")+"\n"; got != want {
		t.Errorf("%s: preds.txt holds %q, want %q", what, got, want)
	}
	results := read("results/medperf_results.yaml")
	want := fmt.Sprintf("correct: %d\nerror: 0.0\nincorrect: 0\nnum_classes: %d\n", len(d.nums), d.numClasses)
	if results != want {
		t.Errorf("%s: medperf_results.yaml holds %q, want %q", what, results, want)
	}
	stats := read("statistics/medperf_statistics.yaml")
	t.Logf("%s: preds.txt %q; medperf_results.yaml %q; medperf_statistics.yaml %q", what, d.preds(), results, stats)
}

// checkBug checks what model-bug left on the claim: every prediction but
// the last, written before it raised.
func (d *medperfTestsData) checkBug(t *testing.T, what, dir string) {
	t.Helper()
	preds := d.preds()
	if got, want := string(readClaim(t, dir, "predictions/preds.txt")),
		strings.Join(preds[:len(preds)-1], "\n")+"\n"; got != want {
		t.Errorf("%s: model-bug's preds.txt holds %q, want %q (all but the last, written before it raised)", what, got, want)
	}
}
