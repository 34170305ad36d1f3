package check

import (
	"strings"
	"time"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/spec"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// defaultMountPath is where the workspace goes when the platform names
// no place, as the MLCube Kubernetes runner mounts it.
const defaultMountPath = "/mnt/mlcube"

// reservedPaths are mounted by the kubelet, the runtime or an engine; the
// workspace cannot go there.
var reservedPaths = []string{"/dev", "/proc", "/sys", "/tekton", "/var/run/secrets"}

// checker holds what the checks of one pipeline share.
type checker struct {
	spec  *spec.Pipeline
	plat  *spec.Platform
	diags diag.Diagnostics
	// params are the names a ${params.X} may refer to.
	params map[string]bool
	// claims are the legacy claims already checked.
	claims map[string]bool
	// needValues, when set, says why every param needs a value now.
	needValues string
	// noParams, when set, names the kind of job whose manifest the step
	// becomes: parameter references are refused there.
	noParams string
}

// Check makes the semantic checks that read only the decoded specs: the
// platform's storage, the params, the schedule, and each step's
// arguments, environment, placement, retries, docker flags and MPI or
// Dask settings. needValues, when set, says why every param needs a
// value at compile time.
func Check(ps *spec.Pipeline, plat *spec.Platform, needValues string) diag.Diagnostics {
	c := &checker{spec: ps, plat: plat, needValues: needValues, params: map[string]bool{}, claims: map[string]bool{}}
	c.mountPath()
	c.workspace()
	c.checkParams()
	c.schedule()
	for _, st := range ps.Steps {
		// A step without an engine name is reported by lowering, which
		// goes no further with it.
		if !hasNameChars(st.Name) {
			continue
		}
		if st.Dask != nil {
			c.daskStep(st)
		} else {
			c.step(st)
		}
	}
	c.mountPaths()
	c.kueue()
	return c.diags
}

func (c *checker) errorf(at diag.Loc, format string, args ...any) {
	c.diags = append(c.diags, diag.Errorf(at, format, args...))
}

// mountPath refuses a workspace mount path inside one the runtime or
// an engine mounts.
func (c *checker) mountPath() {
	mp := c.plat.Storage.MountPath
	if mp == "" {
		mp = defaultMountPath
	}
	for _, r := range reservedPaths {
		if mp == r || strings.HasPrefix(mp, r+"/") {
			c.errorf(c.plat.Loc.Field("storage").Field("mountPath"), "%s is inside %s, which the container runtime or an engine mounts itself; use a path such as /mnt/mlcube", mp, r)
		}
	}
}

// hasNameChars says whether name has a letter or digit to make an engine
// name from, as lowering's names see it.
func hasNameChars(name string) bool {
	return strings.ContainsFunc(strings.ToLower(name), func(r rune) bool {
		return r >= 'a' && r <= 'z' || r >= '0' && r <= '9'
	})
}

// step checks a container or MPI step, as lowering reads it.
func (c *checker) step(st *spec.Step) {
	if st.MPI != nil {
		c.noParams = "an MPIJob"
		defer func() { c.noParams = "" }()
	}
	gpus, args := st.GPUs()
	fx, diags := spec.MapDockerArgs(args, gpus)
	c.diags = append(c.diags, diags...)
	c.resources(st.Resources, st.Loc)
	c.containerArgs(st)
	c.env(st, fx.Env)
	c.placement(st, gpus > 0)
	c.retryAndTimeout(st)
	if st.MPI != nil {
		c.mpi(st)
	}
}

// maxRetries is the most retries a step may ask for.
const maxRetries = 100

// retryAndTimeout checks the step's retries and timeout.
func (c *checker) retryAndTimeout(st *spec.Step) {
	if r := st.Retries; r != nil {
		if r.Limit > maxRetries {
			c.errorf(st.Loc.Field("retries").Field("limit"), "%d retries is more than the %d allowed", r.Limit, maxRetries)
		}
		if r.Backoff != "" {
			c.duration(r.Backoff, st.Loc.Field("retries").Field("backoff"))
		}
	}
	if st.Timeout != "" {
		c.duration(st.Timeout, st.Loc.Field("timeout"))
	}
}

// duration checks a positive duration such as 30s, 15m or 4h.
func (c *checker) duration(s string, at diag.Loc) {
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		c.errorf(at, "%q is not a positive duration (such as 30s, 15m or 4h)", s)
		return
	}
	if d%time.Second != 0 {
		c.errorf(at, "%q: engines count in whole seconds", s)
	}
}
