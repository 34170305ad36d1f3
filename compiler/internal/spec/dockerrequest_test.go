package spec

import (
	"strings"
	"testing"
)

// TestDockerGPUs takes its cases from docker/cli's opts/gpus_test.go
// (v29.9.3: TestGpusOptAll, TestGpusOpts, TestGpusOptInvalidCount) and
// adds the forms MLCube cubes write.
func TestDockerGPUs(t *testing.T) {
	all := []string{"all", "-1", "count=all", "count=-1", "device=0", `"device=0,2"`, "driver=nvidia,device=GPU-3a23c669"}
	for _, s := range all {
		if n, _, err := dockerGPUs(s); err != nil || n != nil {
			t.Errorf("%s: %v, %v; want all (nil)", s, n, err)
		}
	}
	ones := []string{
		`driver=nvidia,"capabilities=compute,utility","options=foo=bar,baz=qux"`,
		`1,driver=nvidia,"capabilities=compute,utility","options=foo=bar,baz=qux"`,
		`count=1,driver=nvidia,"capabilities=compute,utility","options=foo=bar,baz=qux"`,
		`driver=nvidia,"capabilities=compute,utility","options=foo=bar,baz=qux",count=1`,
		"1", "capabilities=utility",
	}
	for _, s := range ones {
		if n, _, err := dockerGPUs(s); err != nil || n == nil || *n != 1 {
			t.Errorf("%s: %v, %v; want 1", s, n, err)
		}
	}
	for s, want := range map[string]string{
		"count=invalid-integer": `invalid count (invalid-integer): value must be either "all" or an integer`,
		"x":                     `invalid count (x)`,
		"count=1,count=2":       `gpu request key 'count' can be specified only once`,
		"2,count=2":             `gpu request key 'count' can be specified only once`,
		"gpu=1":                 `unexpected key 'gpu' in 'gpu=1'`,
		"-2":                    `invalid count (-2)`,
		"device=0,1":            `cannot set both Count and DeviceIDs`,
		"count=2,device=0":      `cannot set both Count and DeviceIDs`,
	} {
		if _, _, err := dockerGPUs(s); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want %q", s, err, want)
		}
	}
}

// TestDockerCPUs: --cpus as docker's ParseCPUs reads it (docker/cli
// opts/opts.go), as a Kubernetes quantity.
func TestDockerCPUs(t *testing.T) {
	for s, want := range map[string]string{
		"2": "2", "0.5": "0.5", "1.5": "1.5", "3/2": "1.5", "1e1": "10", ".25": "0.25",
		"0": "", "0.000000001": "0.000000001", "+4": "4",
	} {
		if got, err := dockerCPUs(s); err != nil || got != want {
			t.Errorf("%s: %q, %v; want %q", s, got, err, want)
		}
	}
	for s, want := range map[string]string{
		"foo": "failed to parse foo as a rational number", "1e-32": "value is too precise",
		"-1": "a negative number of CPUs", "2 cpus": "failed to parse", "": "failed to parse",
	} {
		if _, err := dockerCPUs(s); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v; want %q", s, err, want)
		}
	}
}

// TestDockerArgsAsDockerReadsThem: gpu_args that docker takes are taken,
// not refused by a narrower reading of ours.
func TestDockerArgsAsDockerReadsThem(t *testing.T) {
	fx, diags := MapDockerArgs(DockerArgs{Text: `--gpus count=2,capabilities=utility --cpus=3/2`}, 2)
	if diags.HasErrors() || fx.GPUs == nil || *fx.GPUs != 2 || fx.CPU != "1.5" {
		t.Fatalf("effects %+v, %v; want 2 GPUs and 1.5 CPUs", fx, diags)
	}
	_, diags = MapDockerArgs(DockerArgs{Text: `--gpus device=0,1`}, 2)
	if !diags.HasErrors() || !strings.Contains(diags[0].Message, "quote it") {
		t.Fatalf("--gpus device=0,1, which docker's daemon refuses: %v", diags)
	}
}
