package specgen

import (
	"fmt"
	"strings"
)

// lintTasks are the tasks a generated cube picks from, each written the
// way MLCommons cubes write theirs.
var lintTasks = []string{`  download:
    parameters:
      inputs:
        data_config: {type: file, default: data.yaml}
      outputs:
        data_dir: {type: directory, default: data}
        log_dir: {type: directory, default: logs}
`, `  train:
    parameters:
      inputs:
        data_dir: {type: directory, default: data}
        train_config: {type: file, default: train.yaml}
      outputs:
        log_dir: {type: directory, default: logs}
        model_dir: {type: directory, default: model}
`, `  evaluate:
    entrypoint: python evaluate.py --verbose
    parameters:
      inputs:
        model_dir: model/
        data_dir: data/
      outputs:
        metrics: {type: file, default: metrics/results.yaml}
`}

// LintCube is the i-th of a set of valid, different cubes, as a
// repository of cubes holds them: names, images, GPU counts, docker flags,
// env vars and one to three tasks vary with i.
func LintCube(i int) string {
	var b strings.Builder
	gpus := i % 2
	fmt.Fprintf(&b, "name: cube-%04d\n", i)
	fmt.Fprintf(&b, "description: Generated cube %d for lint benchmarks\n", i)
	b.WriteString("authors:\n  - {name: \"First Second\", email: \"first.second@company.com\", org: \"Company Inc.\"}\n\n")
	fmt.Fprintf(&b, "platform:\n  accelerator_count: %d\n  host_memory_gb: %d\n\n", gpus, 8<<(i%4))
	fmt.Fprintf(&b, "docker:\n  image: registry.local/cube-%04d:0.%d.0\n", i, i%10)
	if gpus > 0 {
		b.WriteString("  gpu_args: --gpus=all --shm-size=1g\n")
	}
	fmt.Fprintf(&b, "  env_args:\n    SEED: \"%d\"\n    LOG_LEVEL: info\n\n", i)
	b.WriteString("tasks:\n")
	for t := 0; t <= i%len(lintTasks); t++ {
		b.WriteString(lintTasks[t])
	}
	return b.String()
}
