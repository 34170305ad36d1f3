package spec

import "testing"

// TestContainerGPUs reads run_args.gpus as MedPerf's _normalize_gpu_arg
// does, as a number of GPUs Kubernetes can ask for.
func TestContainerGPUs(t *testing.T) {
	for _, c := range []struct {
		in            string
		n             int
		warn, problem bool
	}{
		{"", 0, false, false}, {"0", 0, false, false}, {"2", 2, false, false},
		{"all", 1, true, false}, {"device=0,1", 2, true, false},
		{"device=", 0, false, true}, {"lots", 0, false, true}, {"-1", 0, false, true},
	} {
		n, warn, problem := containerGPUs(c.in)
		if n != c.n || (warn != "") != c.warn || (problem != "") != c.problem {
			t.Errorf("containerGPUs(%q) = %d, %q, %q; want %d, warning %v, problem %v", c.in, n, warn, problem, c.n,
				c.warn, c.problem)
		}
	}
}

// TestContainerName names a container after its folder.
func TestContainerName(t *testing.T) {
	for in, want := range map[string]string{
		"cubes/metrics/container_config.yaml": "metrics",
		"container_config.yaml":               "container",
		`c:\x\model\container_config.yaml`:    "model",
	} {
		if got := containerName(in); got != want {
			t.Errorf("containerName(%q) = %q, want %q", in, got, want)
		}
	}
}
