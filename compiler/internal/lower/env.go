package lower

import (
	"maps"
	"slices"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/spec"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
)

// env merges, later sources winning: the cube's env_args, docker -e
// flags, the pipeline's configs, the step's envFile, the step's env, the
// pipeline's secretEnv, then the step's secretEnv. Only the pipeline
// file's own values may refer to ${params.X}; package check has checked
// names and values. Variables are sorted by name.
func (lw *lowering) env(st *spec.Step, fx spec.DockerEffects) []ir.EnvVar {
	merged := map[string]ir.EnvVar{}
	add := func(vars []spec.EnvVar, pipeline bool) {
		for _, e := range vars {
			value := ir.Lit(e.Value)
			if pipeline {
				value = lw.text(e.Value)
			}
			merged[e.Name] = ir.EnvVar{Name: e.Name, Value: value}
		}
	}
	add(st.CubeEnv(), false)
	add(fx.Env, false)
	for _, e := range lw.configEnv() {
		merged[e.Name] = e
	}
	add(st.EnvFileVars, true)
	add(st.Env, true)
	for _, e := range append(append([]spec.SecretEnvVar{}, lw.spec.SecretEnv...), st.SecretEnv...) {
		merged[e.Name] = ir.EnvVar{Name: e.Name, Secret: &ir.SecretKey{Secret: e.Secret, Key: e.Key}}
	}
	var out []ir.EnvVar
	for _, k := range slices.Sorted(maps.Keys(merged)) {
		out = append(out, merged[k])
	}
	return out
}
