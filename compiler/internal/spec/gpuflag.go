package spec

import (
	"fmt"
	"strconv"
	"strings"

	"cuelang.org/go/cue"

	"github.com/mlcube-compile/mlcube-compile/diag"
)

// GPUFlag is a --gpus that decides how many GPUs a cube's tasks ask for,
// where MLCube or docker takes it so: the docker section's --gpus key of
// an MLCube 2.0 cube, which wins over platform.accelerator_count
// (DeviceSpecs.from_config, mlcube/parser.py), and --gpus in the
// run_args of a 1.0 docker platform file, which docker run gets as it is
// (DockerRun.run of MLCube 1.0's docker runner). A pod asks for a number
// of GPUs: Count.
type GPUFlag struct {
	// Count is the GPUs a task asks for: N for a count, the number of
	// devices for device=IDS, 1 for all; 0 asks for none.
	Count int
	// Why says how Count was chosen.
	Why string
	Loc diag.Loc
}

// gpuFlagOf reads --gpus as MLCube reads the docker section's key
// (DeviceSpecs.from_string, mlcube/parser.py): empty for none, all, an
// integer (none when not positive), or device= and a comma-separated
// list of indexes or IDs; MLCube refuses anything else.
func gpuFlagOf(v cue.Value, at diag.Loc) (*GPUFlag, diag.Diagnostics) {
	if !v.Exists() {
		return nil, nil
	}
	s := strings.TrimSpace(scalarString(v))
	g := &GPUFlag{Loc: at}
	if n, err := strconv.Atoi(s); err == nil {
		g.Count = max(n, 0)
		g.Why = "as docker.--gpus asks, over platform.accelerator_count as in MLCube"
		return g, nil
	}
	switch {
	case s == "":
		g.Why = "as docker.--gpus, empty, asks, over platform.accelerator_count as in MLCube"
		return g, nil
	case s == "all":
		g.Count = 1
		g.Why = "docker.--gpus all asks for every GPU of a host, and a pod asks for a number"
		return g, nil
	case strings.HasPrefix(s, "device="):
		g.Count = countDevices(strings.TrimPrefix(s, "device="))
		g.Why = fmt.Sprintf("docker.--gpus %s names %d of one host's devices, and a pod cannot choose devices", s, g.Count)
		return g, nil
	}
	return nil, diag.Diagnostics{diag.Errorf(diag.RunnerValueRefused, at,
		"--gpus %q: MLCube takes all, a count or device=IDS, and stops mlcube run on anything else", s).
		WithFix("write all, a number such as 2, or device=0,1").
		WithDetail("MLCube reads it with DeviceSpecs.from_string (mlcube/parser.py).")}
}

// countDevices counts the devices of device=IDS, ignoring empty ones.
func countDevices(ids string) int {
	n := 0
	for _, id := range strings.Split(ids, ",") {
		if strings.TrimSpace(id) != "" {
			n++
		}
	}
	return n
}

// runArgsGPUs finds --gpus in a 1.0 platform file's run_args, which docker
// run reads itself (docker/cli opts/gpus.go, as dockerGPUs reads it); nil
// when it has none, or one that cannot be read (MapDockerArgs refuses
// it where the flags are lowered).
func runArgsGPUs(a DockerArgs) *GPUFlag {
	tokens, err := SplitWords(a.Text)
	if err != nil {
		return nil
	}
	var g *GPUFlag
	for i := 0; i < len(tokens); i++ {
		flag, value, hasValue := strings.Cut(tokens[i], "=")
		if !hasValue && flagsWithValue[flag] && i+1 < len(tokens) {
			i++
			value = tokens[i]
		}
		if flag != "--gpus" {
			continue
		}
		n, devices, err := dockerGPUs(value)
		if err != nil {
			return nil
		}
		// docker adds a device request for each --gpus; the last one
		// read here stands for them.
		g = &GPUFlag{Loc: a.Loc}
		switch {
		case devices > 0:
			g.Count = devices
			g.Why = fmt.Sprintf("--gpus=%s in run_args names %d of one host's devices, and a pod cannot "+
				"choose devices", value, devices)
		case n == nil:
			g.Count = 1
			g.Why = fmt.Sprintf("--gpus=%s in run_args asks docker for every GPU of a host, and a pod asks for a number", value)
		default:
			g.Count = max(*n, 0)
			g.Why = fmt.Sprintf("as --gpus=%s in run_args asks docker", value)
		}
	}
	return g
}
