package check

import (
	"github.com/mlcube-compile/mlcube-compile/compiler/internal/spec"
)

// env checks every variable the step's environment is merged from: the
// cube's env_args, docker -e flags (dockerEnv), the step's envFile and
// env, whose values alone may refer to ${params.X}, and its secretEnv.
// Names must be valid, and values that look like credentials are refused.
func (c *checker) env(st *spec.Step, dockerEnv []spec.EnvVar) {
	check := func(vars []spec.EnvVar, pipeline bool) {
		for _, e := range vars {
			if !spec.EnvName.MatchString(e.Name) {
				c.errorf(e.Loc, "%q is not a valid environment variable name", e.Name)
				continue
			}
			if diags := spec.CheckCredential(e.Name, e.Value, e.Loc); diags != nil {
				c.diags = append(c.diags, diags...)
				continue
			}
			if pipeline {
				c.text(e.Value, e.Loc)
			}
		}
	}
	check(st.CubeEnv(), false)
	check(dockerEnv, false)
	check(st.EnvFileVars, true)
	check(st.Env, true)
	own := map[string]bool{}
	for _, e := range st.Env {
		own[e.Name] = true
	}
	for _, e := range append(append([]spec.SecretEnvVar{}, c.spec.SecretEnv...), st.SecretEnv...) {
		if own[e.Name] {
			c.errorf(e.Loc, "%s is also set by %s; a variable comes from env or from secretEnv, not both", e.Name, st.Loc.Field("env").Path())
		}
	}
}
