package main

import (
	"path/filepath"
	"testing"
)

// TestGoldenObjectJob is bucket-pipeline's first task as a Job, which
// fetches its raw data from the bucket and uploads what it writes: its
// golden file is testdata/golden/job/bucket-pipeline-prepare.yaml.
func TestGoldenObjectJob(t *testing.T) {
	dir := filepath.Join(repoRoot, "examples", "bucket-pipeline")
	jobGolden(t, "bucket-pipeline-prepare.yaml", "--mlcube", dir, "--platform", filepath.Join(dir, "platform.yaml"),
		"--task", "prepare")
}

// jobGolden compiles args with the job backend, compares the Job with
// testdata/golden/job/name, and validates it: the goldens of one task of
// an example, which the examples' golden test cannot name.
func jobGolden(t *testing.T, name string, args ...string) {
	t.Helper()
	out, stderr, code := compileArgs(t, append([]string{"mlcube-compile", "--backend", "job"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	golden := filepath.Join(repoRoot, "testdata", "golden", "job", name)
	compareGolden(t, golden, out)
	validators["job"](t, golden, out)
}
