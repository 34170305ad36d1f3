package enginetest

import (
	"os"
	"path/filepath"
	"testing"
)

// WriteFiles lays out a spec tree (path → content) in a new temporary
// folder and returns it; a file whose content is "" is left out.
func WriteFiles(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if body == "" {
			continue
		}
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// DemoCube is a small cube of two tasks, prepare writing data/ and train
// reading it.
const DemoCube = `name: demo
docker: {image: example/demo:1}
tasks:
  prepare:
    parameters:
      outputs: {data_dir: data/}
  train:
    parameters:
      inputs: {data_dir: data/}
      outputs: {model_dir: model/}
`

// ResNetPipeline is a folder with seed 002's pipeline (one step, train,
// of examples/resnet50-multinode's cube) with more lines for the step,
// its mlops.env, and platform as its platform.yaml ("" for none).
func ResNetPipeline(t testing.TB, step, platform string) string {
	t.Helper()
	return WriteFiles(t, map[string]string{
		"pipeline.yaml": "name: resnet50\ncubes: {resnet: " + Example(t, "resnet50-multinode") +
			"}\nsteps:\n  train:\n    task: train\n" + step,
		"platform.yaml": platform,
		"mlops.env":     "DATASET_DIR=/mnt/mlops/tf_dataset\n",
	})
}

// StoragePipeline is a folder with a pipeline of steps (lines under
// steps:) of examples/resnet50-multinode's cube, and a platform.yaml of
// storage (lines under storage:).
func StoragePipeline(t testing.TB, steps, storage string) string {
	t.Helper()
	return WriteFiles(t, map[string]string{
		"pipeline.yaml": "name: shared\ncubes: {resnet: " + Example(t, "resnet50-multinode") + "}\nsteps:\n" + steps,
		"platform.yaml": "storage:\n" + storage,
	})
}

// DaskPipeline is a folder with a pipeline of one Dask step, run, with
// more lines for the step (before dask:) and for dask: (before output:).
func DaskPipeline(t testing.TB, step, dask string) string {
	t.Helper()
	return WriteFiles(t, map[string]string{"pipeline.yaml": "name: bench\nsteps:\n  run:\n" + step + `    dask:
      function: deepecho.benchmark.run_benchmark
      workers: 1
      image: ghcr.io/dask/dask:2024.1.0
` + dask + `      output: {path: out.csv}
`})
}

// TorchPipeline is a folder with a pipeline of one step, train, of
// examples/torch-ddp's cube, with more lines for the step, and a
// platform.yaml of platform.
func TorchPipeline(t testing.TB, step, platform string) string {
	t.Helper()
	return WriteFiles(t, map[string]string{
		"pipeline.yaml": "name: ddp\ncubes: {ddp: " + Example(t, "torch-ddp") + "}\nsteps:\n  train:\n" + step,
		"platform.yaml": platform,
	})
}
