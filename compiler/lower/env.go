package lower

import (
	"maps"
	"slices"

	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/compiler/spec"
)

// env merges, later sources winning: the cube's env_args, docker -e
// flags, the pipeline's configs, the step's envFile, the step's env, the
// pipeline's secretEnv, then the step's secretEnv. Only the pipeline
// file's own values may refer to ${params.X}. Values that look like
// credentials are refused. Variables are sorted by name.
func (lw *lowering) env(st *spec.Step, fx dockerEffects) []ir.EnvVar {
	merged := map[string]ir.EnvVar{}
	add := func(vars []spec.EnvVar, pipeline bool) {
		for _, e := range vars {
			if !spec.EnvName.MatchString(e.Name) {
				lw.errorf(e.Loc, "%q is not a valid environment variable name", e.Name)
				continue
			}
			if diags := spec.CheckCredential(e.Name, e.Value, e.Loc); diags != nil {
				lw.diags = append(lw.diags, diags...)
				continue
			}
			value := ir.Lit(e.Value)
			if pipeline {
				value = lw.text(e.Value, e.Loc)
			}
			merged[e.Name] = ir.EnvVar{Name: e.Name, Value: value}
		}
	}
	add(cubeEnv(st.Cube), false)
	add(fx.env, false)
	for _, e := range lw.configEnv() {
		merged[e.Name] = e
	}
	add(st.EnvFileVars, true)
	add(st.Env, true)
	own := map[string]bool{}
	for _, e := range st.Env {
		own[e.Name] = true
	}
	for _, e := range append(append([]spec.SecretEnvVar{}, lw.spec.SecretEnv...), st.SecretEnv...) {
		if own[e.Name] {
			lw.errorf(e.Loc, "%s is also set by %s; a variable comes from env or from secretEnv, not both", e.Name, st.Loc.Field("env").Path())
		}
		merged[e.Name] = ir.EnvVar{Name: e.Name, Secret: &ir.SecretKey{Secret: e.Secret, Key: e.Key}}
	}
	var out []ir.EnvVar
	for _, k := range slices.Sorted(maps.Keys(merged)) {
		out = append(out, merged[k])
	}
	return out
}

func cubeEnv(c *spec.Cube) []spec.EnvVar {
	if c == nil {
		return nil
	}
	return c.Env
}
