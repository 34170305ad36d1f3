package spec

import (
	"encoding/csv"
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// dockerGPUs reads --gpus as docker reads it (GpuOpts.Set in docker/cli
// opts/gpus.go, v29): comma-separated fields, quoted as CSV; a field
// without '=' is the count, else driver=, count=, device=IDS,
// capabilities= or options=, each at most once; a count is "all" or an
// integer, -1 meaning all; no count and no devices ask for one GPU. It
// returns the number of GPUs, or nil for all of them or for named devices
// (a pod asks for a number of GPUs, which the step's own count gives),
// and how many devices it names.
func dockerGPUs(value string) (*int, int, error) {
	fields, err := csv.NewReader(strings.NewReader(value)).Read()
	if err != nil {
		return nil, 0, err
	}
	seen := map[string]bool{}
	count, devices := 1, 0
	for _, field := range fields {
		key, val, withValue := strings.Cut(field, "=")
		if seen[key] {
			return nil, 0, fmt.Errorf("gpu request key '%s' can be specified only once", key)
		}
		seen[key] = true
		switch {
		case !withValue:
			seen["count"] = true
			val = key
			fallthrough
		case key == "count":
			if count, err = dockerGPUCount(val); err != nil {
				return nil, 0, err
			}
		case key == "device":
			devices = countDevices(val)
		case key == "driver", key == "capabilities", key == "options":
		default:
			return nil, 0, fmt.Errorf("unexpected key '%s' in '%s'", key, field)
		}
	}
	switch {
	case devices > 0 && seen["count"]:
		// The daemon refuses what the parser takes (daemon/nvidia_linux.go,
		// errConflictCountDeviceIDs): unquoted, device=0,1 is device=0 and a
		// count of 1.
		return nil, 0, fmt.Errorf("cannot set both Count and DeviceIDs on device request (docker's daemon refuses it; " +
			"unquoted, device=0,1 is device 0 and a count of 1: quote it, '\"device=0,1\"')")
	case count == -1 || devices > 0:
		return nil, devices, nil
	}
	return &count, 0, nil
}

// dockerGPUCount is parseCount of docker/cli opts/gpus.go: all (-1) or an
// integer. Kubernetes asks for a number of GPUs, so one below -1 is
// refused too.
func dockerGPUCount(s string) (int, error) {
	if s == "all" {
		return -1, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < -1 {
		return 0, fmt.Errorf(`invalid count (%s): value must be either "all" or an integer`, s)
	}
	return n, nil
}

// dockerCPUs reads --cpus as docker reads it (ParseCPUs in docker/cli
// opts/opts.go: a rational number, such as 1.5, 3/2 or 1e1, that is a
// whole number of nano CPUs) and writes it as a Kubernetes quantity; 0,
// docker's "no limit", is "". Docker's daemon refuses a negative count.
func dockerCPUs(s string) (string, error) {
	cpu, ok := new(big.Rat).SetString(s)
	switch {
	case !ok:
		return "", fmt.Errorf("failed to parse %v as a rational number", s)
	case !new(big.Rat).Mul(cpu, big.NewRat(1e9, 1)).IsInt():
		return "", fmt.Errorf("value is too precise")
	case cpu.Sign() < 0:
		return "", fmt.Errorf("a negative number of CPUs")
	case cpu.Sign() == 0:
		return "", nil
	}
	return strings.TrimSuffix(strings.TrimRight(cpu.FloatString(9), "0"), "."), nil
}
