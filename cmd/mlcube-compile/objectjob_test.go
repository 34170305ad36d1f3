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
	args := []string{"mlcube-compile", "--backend", "job", "--mlcube", dir, "--platform", filepath.Join(dir, "platform.yaml"), "--task", "prepare"}
	out, stderr, code := compileArgs(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	golden := filepath.Join(repoRoot, "testdata", "golden", "job", "bucket-pipeline-prepare.yaml")
	compareGolden(t, golden, out)
	validators["job"](t, golden, out)
}
