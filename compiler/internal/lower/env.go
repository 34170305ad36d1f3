package lower

import (
	"maps"
	"slices"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/spec"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// env merges, later sources winning: the cube's env_args, docker -e
// flags, the pipeline's configs, the step's envFile, the step's env, the
// pipeline's secretEnv, then the step's secretEnv. Only the pipeline
// file's own values may refer to ${params.X}. Each variable read is
// checked: its name must be valid, a value that looks like a credential
// is refused, and a variable comes from env or secretEnv, not both.
// Variables are sorted by name.
func (sl *stepLowering) env(fx spec.DockerEffects) []ir.EnvVar {
	st := sl.st
	merged := map[string]ir.EnvVar{}
	add := func(vars []spec.EnvVar, pipeline bool) {
		for _, e := range vars {
			value := ir.Lit(e.Value)
			switch {
			case !spec.EnvName.MatchString(e.Name):
				sl.diags = append(sl.diags, diag.Errorf(diag.BadEnv, e.Loc, "%q is not a valid environment variable name", e.Name))
			case sl.credential(e):
			case pipeline:
				value = sl.text(e.Value, e.Loc)
			}
			merged[e.Name] = ir.EnvVar{Name: e.Name, Value: value}
		}
	}
	add(st.CubeEnv(), false)
	add(fx.Env, false)
	for _, e := range configEnv(sl.p.Config) {
		merged[e.Name] = e
	}
	add(st.EnvFileVars, true)
	add(st.Env, true)
	for _, e := range append(append([]spec.SecretEnvVar{}, sl.spec.SecretEnv...), st.SecretEnv...) {
		if slices.ContainsFunc(st.Env, func(o spec.EnvVar) bool { return o.Name == e.Name }) {
			sl.diags = append(sl.diags, diag.Errorf(diag.BadEnv, e.Loc,
				"%s is also set by %s; a variable comes from env or from secretEnv, not both", e.Name,
				st.Loc.Field("env").Path()))
		}
		merged[e.Name] = ir.EnvVar{Name: e.Name, Secret: &ir.SecretKey{Secret: e.Secret, Key: e.Key}}
	}
	var out []ir.EnvVar
	for _, k := range slices.Sorted(maps.Keys(merged)) {
		out = append(out, merged[k])
	}
	return out
}

// credential refuses a variable whose value looks like a credential, and
// says whether it did.
func (lw *lowering) credential(e spec.EnvVar) bool {
	diags := spec.CheckCredential(e.Name, e.Value, e.Loc)
	lw.diags = append(lw.diags, diags...)
	return diags != nil
}
