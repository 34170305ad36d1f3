package spec

import (
	"cmp"
	"encoding/csv"
	"fmt"
	"strconv"
	"strings"

	units "github.com/docker/go-units"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/mlcube-compile/mlcube-compile/diag"
)

// DockerEffects is what docker run flags mean on Kubernetes.
type DockerEffects struct {
	GPUs    *int // from --gpus; nil for all, for named devices, or when absent
	ShmSize string
	// ShmHost is the host's /dev/shm (--ipc=host, -v /dev/shm:/dev/shm):
	// a memory-backed /dev/shm without a size of its own. It wins over
	// ShmSize, as docker gives a container the host's IPC namespace and
	// /dev/shm whatever --shm-size says.
	ShmHost bool
	CPU     string
	Memory  string
	Env     []EnvVar
}

// Then is fx with the effects of flags that come after fx's: each value
// they set wins, and their variables are added.
func (fx DockerEffects) Then(more DockerEffects) DockerEffects {
	if more.GPUs != nil {
		fx.GPUs = more.GPUs
	}
	for _, f := range []struct {
		to   *string
		from string
	}{{&fx.ShmSize, more.ShmSize}, {&fx.CPU, more.CPU}, {&fx.Memory, more.Memory}} {
		if f.from != "" {
			*f.to = f.from
		}
	}
	fx.ShmHost = fx.ShmHost || more.ShmHost
	fx.Env = append(fx.Env, more.Env...)
	return fx
}

// flagsWithValue are the docker run flags that take a value.
var flagsWithValue = map[string]bool{
	"--gpus": true, "--shm-size": true, "--ipc": true, "-v": true, "--volume": true,
	"-e": true, "--env": true, "--network": true, "--net": true, "--ulimit": true,
	"--cpus": true, "-m": true, "--memory": true, "-u": true, "--user": true,
	"--runtime": true, "--device": true, "--mount": true, "-w": true, "--workdir": true,
	"--cap-add": true, "--security-opt": true, "--env-file": true, "--pid": true,
}

// MapDockerArgs maps the flags of a docker run flag string that have a
// Kubernetes meaning, and warns about each one that has none, for a step
// that asks for gpus GPUs: --runtime=nvidia and --gpus say what such a
// step's GPU limit says, and are warned about only when it asks for none.
// Package lower reports the diagnostics and uses the effects.
func MapDockerArgs(a DockerArgs, gpus int) (DockerEffects, diag.Diagnostics) {
	var fx DockerEffects
	tokens, err := SplitWords(a.Text)
	if err != nil {
		return fx, diag.Diagnostics{diag.Errorf(diag.BadDockerFlags, a.Loc, "%v", err)}
	}
	var diags diag.Diagnostics
	for i := 0; i < len(tokens); i++ {
		flag, value, hasValue := strings.Cut(tokens[i], "=")
		if !hasValue && flagsWithValue[flag] && i+1 < len(tokens) {
			i++
			value, hasValue = tokens[i], true
		}
		whole := flag
		if hasValue {
			whole += "=" + value
		}
		if flag == "--gpus" {
			// A value docker refuses is an error whether the step
			// asks for GPUs or not: read as unasked, it would leave a
			// run meant for GPUs on CPU with a warning.
			if _, _, err := dockerGPUs(value); err != nil {
				diags = append(diags, diag.Errorf(diag.BadDockerFlags, a.Loc, "--gpus=%s: %v (docker's own words)", value, err))
				continue
			}
		}
		if isGPUFlag(flag, value) && gpus == 0 {
			diags = append(diags, diag.Warnf(diag.DockerGPUsUnasked, a.Loc,
				"docker flag %q asks for GPUs, but the step asks for none, so it is not applied", whole).
				WithFix("ask for them with platform.accelerator_count or the step's resources.gpu, or drop the flag"))
			continue
		}
		known, problem := mapDockerFlag(&fx, flag, value, a)
		switch {
		case problem != "":
			diags = append(diags, diag.Errorf(diag.BadDockerFlags, a.Loc, "%s", problem))
		case !known:
			diags = append(diags, diag.Warnf(diag.DockerFlagNotApplied, a.Loc, "docker flag %q %s", whole,
				notApplied(flag, value)))
		}
	}
	if fx.ShmHost {
		fx.ShmSize = ""
	}
	return fx, diags
}

// podCannot says, for the docker flags that ask for what a pod of
// mlcube-compile's cannot have, what the container gets instead.
var podCannot = map[string]string{
	"--privileged": "is not applied: the container runs unprivileged, with the runtime's default " +
		"capabilities and devices",
	"--cap-add": "is not applied: the container gets the runtime's default capabilities",
	"--security-opt": "is not applied: the container gets the runtime's default seccomp and AppArmor profiles (the " +
		"pod's securityContext, which mlcube-compile does not set from docker flags)",
	"--ulimit": "is not applied: a pod cannot set ulimits, so the container gets the node's container runtime's limits",
	"--device": "is not applied: a pod cannot map a host's devices (ask for GPUs with --gpus or the step's resources.gpu)",
	"--uts":    "is not applied: the pod has a hostname of its own",
	"--pid":    "is not applied: the pod has a process namespace of its own",
	"--userns": "is not applied: the pod gets the node's user namespace setting",
	"-v":       "is not applied: a pod mounts no host path; steps share data through the workspace",
	"--volume": "is not applied: a pod mounts no host path; steps share data through the workspace",
	"--mount":  "is not applied: a pod mounts no host path; steps share data through the workspace",
}

// notApplied says why a flag without a Kubernetes meaning here is not
// applied: what a pod gets instead where it cannot have what the flag
// asks for, such as the host's network.
func notApplied(flag, value string) string {
	switch {
	case (flag == "--net" || flag == "--network") && value == "host":
		return "is not applied: the pod has a network of its own, not the host's (hostNetwork), and reaches other pods and " +
			"Services by name"
	case flag == "--ipc" && value != "host":
		return "is not applied: the pod has an IPC namespace of its own"
	case podCannot[flag] != "":
		return podCannot[flag]
	}
	return "has no Kubernetes equivalent in mlcube-compile and is not applied"
}

// isGPUFlag tells the docker flags that ask for GPUs: --gpus, and the
// NVIDIA runtime of nvidia-docker.
func isGPUFlag(flag, value string) bool {
	return flag == "--gpus" || flag == "--runtime" && value == "nvidia"
}

// mapDockerFlag applies one flag of a and reports whether it had a
// meaning, and what is wrong with its value.
func mapDockerFlag(fx *DockerEffects, flag, value string, a DockerArgs) (known bool, problem string) {
	switch flag {
	case "--gpus":
		n, _, err := dockerGPUs(value)
		if err != nil {
			return true, fmt.Sprintf("--gpus=%s: %v (docker's own words)", value, err)
		}
		fx.GPUs = n
	case "--shm-size":
		q, err := dockerSize(value)
		if err != nil {
			return true, fmt.Sprintf("--shm-size=%s: %v", value, err)
		}
		fx.ShmSize = q
	case "--cpus":
		q, err := dockerCPUs(value)
		if err != nil {
			return true, fmt.Sprintf("--cpus=%s: %v; docker takes a number of CPUs such as 2, 0.5 or 3/2", value, err)
		}
		fx.CPU = q
	case "-m", "--memory":
		q, err := dockerSize(value)
		if err != nil {
			return true, fmt.Sprintf("%s=%s: %v", flag, value, err)
		}
		fx.Memory = q
	case "--runtime":
		// Only nvidia, which the step's GPU limit expresses, reaches here.
		return value == "nvidia", ""
	case "--ipc":
		// docker's --ipc=host shares the host's IPC namespace, and so its
		// /dev/shm; other modes give the container one of its own.
		fx.ShmHost = fx.ShmHost || value == "host"
		return value == "host", ""
	case "-v", "--volume":
		// The host's /dev/shm mounted over the container's, as a cube asks
		// for shared memory as large as the host's.
		src, rest, _ := strings.Cut(value, ":")
		dst, _, _ := strings.Cut(rest, ":")
		if src == "/dev/shm" && dst == "/dev/shm" {
			fx.ShmHost = true
			return true, ""
		}
		return false, ""
	case "--mount":
		fx.ShmHost = fx.ShmHost || bindsShm(value)
		return bindsShm(value), ""
	case "-e", "--env":
		k, v, _ := strings.Cut(value, "=")
		fx.Env = append(fx.Env, EnvVar{Name: k, Value: v, Loc: a.Loc.Field(k)})
	default:
		return false, ""
	}
	return true, ""
}

// bindsShm says a --mount value is type=bind,source=/dev/shm,target=
// /dev/shm: -v /dev/shm:/dev/shm written long (docker/cli opts/mount.go:
// CSV fields; src and source, dst, destination and target alike).
func bindsShm(value string) bool {
	fields, err := csv.NewReader(strings.NewReader(value)).Read()
	if err != nil {
		return false
	}
	m := map[string]string{}
	for _, f := range fields {
		k, v, _ := strings.Cut(f, "=")
		m[strings.ToLower(k)] = v
	}
	return m["type"] == "bind" && cmp.Or(m["source"], m["src"]) == "/dev/shm" &&
		cmp.Or(m["target"], m["destination"], m["dst"]) == "/dev/shm"
}

// dockerSize reads a size as docker reads --shm-size and --memory
// (opts.MemBytes, which calls RAMInBytes of github.com/docker/go-units,
// size.go: a decimal number, an optional space, an optional unit k, m, g,
// t or p with an optional i and an optional b, in any case, in binary
// multiples) and writes the same bytes as a Kubernetes quantity. 0 is
// docker's default (64m for /dev/shm, no limit for --memory): "".
func dockerSize(s string) (string, error) {
	n, err := units.RAMInBytes(s)
	if err != nil {
		return "", fmt.Errorf("want a size as docker reads it, such as 512m, 2gb or 1.5GiB (docker: %v)", err)
	}
	if n == 0 {
		return "", nil
	}
	return quantityOfBytes(n), nil
}

// quantityOfBytes writes n bytes in the largest binary unit that divides
// them (2Gi, 1536Mi), or as a plain number.
func quantityOfBytes(n int64) string {
	for _, u := range []struct {
		suffix string
		shift  uint
	}{{"Pi", 50}, {"Ti", 40}, {"Gi", 30}, {"Mi", 20}, {"Ki", 10}} {
		if n%(1<<u.shift) == 0 {
			return strconv.FormatInt(n>>u.shift, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}

// NonNegativeQuantity reports whether s is a Kubernetes quantity >= 0.
func NonNegativeQuantity(s string) bool {
	q, err := resource.ParseQuantity(s)
	return err == nil && q.Sign() >= 0
}

// SplitWords splits a command line into words the way a POSIX shell would
// for quoting, without expanding anything. Nothing here runs a shell.
func SplitWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord, quote := false, rune(0)
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unclosed %c quote", quote)
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// GPUs returns how many GPUs a container step asks for (its own
// resources.gpu, else its cube's --gpus flag, else its cube's
// accelerator_count) and the cube's docker
// flags for them: gpu_args with GPUs, cpu_args without. A MedPerf task's
// GPUs are its run_args.gpus, and its flags its run_args.shm_size.
func (st *Step) GPUs() (int, DockerArgs) {
	gpus := st.Cube.AcceleratorCount
	if g := st.Cube.GPUFlag; g != nil {
		gpus = g.Count
	}
	run := st.Task != nil && st.Task.Run != nil
	if run {
		gpus = st.Task.Run.GPUs
	}
	if st.Resources.GPU != nil {
		gpus = *st.Resources.GPU
	}
	if run {
		return gpus, st.Task.Run.Docker
	}
	if gpus > 0 {
		return gpus, st.Cube.GPUArgs
	}
	return gpus, st.Cube.CPUArgs
}
