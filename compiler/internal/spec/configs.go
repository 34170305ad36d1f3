package spec

import (
	"cuelang.org/go/cue"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/mlcube-compile/mlcube-compile/diag"
)

// maxConfigBytes is the API server's limit on a ConfigMap's data.
const maxConfigBytes = 1 << 20

// ConfigEntry is one key of configs: and its value as the ConfigMap
// stores it.
type ConfigEntry struct {
	Key, Value string
	Loc        diag.Loc
}

// decodeConfigs reads configs:, written at loc. A map or list value is
// stored as JSON, a scalar as its text. Keys become environment variable
// names, and values that name or look like credentials are refused, at
// any depth.
func decodeConfigs(loc diag.Loc, v cue.Value) ([]ConfigEntry, diag.Diagnostics) {
	var out []ConfigEntry
	var diags diag.Diagnostics
	size := 0
	forFields(v, func(key string, cv cue.Value) {
		e := ConfigEntry{Key: key, Loc: loc.Field(key)}
		if !EnvName.MatchString(key) || len(validation.IsConfigMapKey(key)) > 0 {
			diags = append(diags, diag.Errorf(diag.BadEnv, e.Loc,
				"%q is not a valid environment variable name and ConfigMap key", key).
				WithDetail("Such a name is letters, digits, '_', '-' and '.', not starting with a digit."))
			return
		}
		if more := checkConfigValue(e.Loc, key, cv); more != nil {
			diags = append(diags, more...)
			return
		}
		switch cv.IncompleteKind() {
		case cue.StructKind, cue.ListKind:
			b, err := cv.MarshalJSON()
			if err != nil {
				diags = append(diags, diag.Errorf(diag.BadConfigs, e.Loc, "cannot be written as JSON: %v", err))
				return
			}
			e.Value = string(b)
		default:
			e.Value = scalarString(cv)
		}
		size += len(key) + len(e.Value)
		out = append(out, e)
	})
	if size > maxConfigBytes {
		diags = append(diags, diag.Errorf(diag.BadConfigs, loc,
			"%d bytes is more than the %d a ConfigMap may hold; put large data in the workspace and pass its path", size,
			maxConfigBytes))
	}
	return out, diags
}

// checkConfigValue checks a value of configs, written at loc under key,
// and everything inside it: no nulls, no credentials, and no
// ${params.X}, since the ConfigMap exists before the run and no engine
// fills it in.
func checkConfigValue(loc diag.Loc, key string, v cue.Value) diag.Diagnostics {
	kind := v.IncompleteKind()
	if (kind == cue.StructKind || kind == cue.ListKind) && credentialKey(key) {
		return diag.Diagnostics{credential(loc, "%q names a credential", key)}
	}
	var diags diag.Diagnostics
	switch kind {
	case cue.NullKind:
		return diag.Diagnostics{diag.Errorf(diag.BadConfigs, loc, "is null; give it a value or drop it")}
	case cue.StructKind:
		forFields(v, func(name string, fv cue.Value) {
			diags = append(diags, checkConfigValue(loc.Field(name), name, fv)...)
		})
		return diags
	case cue.ListKind:
		if it, err := v.List(); err == nil {
			for i := 0; it.Next(); i++ {
				diags = append(diags, checkConfigValue(loc.Index(i), key, it.Value())...)
			}
		}
		return diags
	}
	s := scalarString(v)
	if diags := CheckCredential(key, s, loc); diags != nil {
		return diags
	}
	if m := AnyRef.FindStringSubmatch(s); m != nil {
		return diag.Diagnostics{diag.Errorf(diag.BadParamRef, loc,
			"${%s}: configs become a ConfigMap that exists before the run, so no engine fills in references there", m[1]).
			WithFix("pass the value through a step's env: instead")}
	}
	return nil
}
