package compiler

import (
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
)

// dockerEffects is what docker run flags mean on Kubernetes.
type dockerEffects struct {
	gpus    *int // from --gpus=N; nil for "all" or when absent
	shmSize string
	cpu     string
	memory  string
	env     []envVar
	// field is the cube key the flags are written under, for messages.
	field string
}

// flagsWithValue are the docker run flags that take a value.
var flagsWithValue = map[string]bool{
	"--gpus": true, "--shm-size": true, "--ipc": true, "-v": true, "--volume": true,
	"-e": true, "--env": true, "--network": true, "--net": true, "--ulimit": true,
	"--cpus": true, "-m": true, "--memory": true, "-u": true, "--user": true,
	"--runtime": true, "--device": true, "--mount": true, "-w": true, "--workdir": true,
	"--cap-add": true, "--security-opt": true, "--env-file": true, "--pid": true,
}

// mapDockerArgs maps the flags of a docker run flag string that have a
// Kubernetes meaning, and warns about each one that has none.
func mapDockerArgs(a dockerArgs, diags *Diagnostics) dockerEffects {
	fx := dockerEffects{field: a.Field}
	tokens, err := splitWords(a.Text)
	if err != nil {
		diags.errorf(a.Pos, a.Field, "%v", err)
		return fx
	}
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
		if !mapDockerFlag(&fx, flag, value, a, diags) {
			diags.warnf(a.Pos, a.Field, "docker flag %q has no Kubernetes equivalent in mlcube-compile and is not applied", whole)
		}
	}
	return fx
}

// mapDockerFlag applies one flag and reports whether it had a meaning.
func mapDockerFlag(fx *dockerEffects, flag, value string, a dockerArgs, diags *Diagnostics) bool {
	switch flag {
	case "--gpus":
		if value == "all" || strings.HasPrefix(value, "device=") || strings.HasPrefix(value, `"device=`) {
			return true
		}
		n, err := strconv.Atoi(value)
		if err != nil || n < 0 {
			diags.errorf(a.Pos, a.Field, "--gpus=%s: want all or a number of GPUs", value)
			return true
		}
		fx.gpus = &n
	case "--shm-size":
		q, err := dockerSize(value)
		if err != nil {
			diags.errorf(a.Pos, a.Field, "--shm-size=%s: %v", value, err)
			return true
		}
		fx.shmSize = q
	case "--cpus":
		if !nonNegativeQuantity(value) {
			diags.errorf(a.Pos, a.Field, "--cpus=%s: want a number of CPUs such as 2 or 0.5", value)
			return true
		}
		fx.cpu = value
	case "-m", "--memory":
		q, err := dockerSize(value)
		if err != nil {
			diags.errorf(a.Pos, a.Field, "%s=%s: %v", flag, value, err)
			return true
		}
		fx.memory = q
	case "-e", "--env":
		k, v, _ := strings.Cut(value, "=")
		fx.env = append(fx.env, envVar{Name: k, Value: v, Pos: a.Pos})
	default:
		return false
	}
	return true
}

// dockerSize converts a docker size (binary units b, k, m, g, case blind)
// into a Kubernetes quantity.
func dockerSize(s string) (string, error) {
	s = strings.TrimSpace(s)
	units := map[string]string{"b": "", "k": "Ki", "m": "Mi", "g": "Gi", "t": "Ti"}
	num, unit := s, ""
	if n := len(s); n > 0 {
		if u, ok := units[strings.ToLower(s[n-1:])]; ok {
			num, unit = s[:n-1], u
		}
	}
	if n, err := strconv.ParseUint(num, 10, 63); err != nil || n == 0 || n > 1<<40 {
		return "", fmt.Errorf("want a size such as 512m or 1g")
	}
	return num + unit, nil
}

// nonNegativeQuantity reports whether s is a Kubernetes quantity >= 0.
func nonNegativeQuantity(s string) bool {
	q, err := resource.ParseQuantity(s)
	return err == nil && q.Sign() >= 0
}

// splitWords splits a command line into words the way a POSIX shell would
// for quoting, without expanding anything. Nothing here runs a shell.
func splitWords(s string) ([]string, error) {
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
