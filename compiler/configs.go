package compiler

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"cuelang.org/go/cue"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// maxConfigBytes is the API server's limit on a ConfigMap's data.
const maxConfigBytes = 1 << 20

// configEntry is one key of configs: and its value as the ConfigMap
// stores it.
type configEntry struct {
	Key, Value string
	Loc        diag.Loc
}

// decodeConfigs reads configs:, written at loc. A map or list value is
// stored as JSON, a scalar as its text. Keys become environment variable
// names, and values that name or look like credentials are refused, at
// any depth.
func decodeConfigs(loc diag.Loc, v cue.Value) ([]configEntry, diag.Diagnostics) {
	var out []configEntry
	var diags diag.Diagnostics
	size := 0
	forFields(v, func(key string, cv cue.Value) {
		e := configEntry{Key: key, Loc: loc.Field(key)}
		if !envName.MatchString(key) || len(validation.IsConfigMapKey(key)) > 0 {
			diags = append(diags, diag.Errorf(e.Loc, "%q is not a valid environment variable name and ConfigMap key (letters, digits, '_', '-' and '.', not starting with a digit)", key))
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
				diags = append(diags, diag.Errorf(e.Loc, "cannot be written as JSON: %v", err))
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
		diags = append(diags, diag.Errorf(loc, "%d bytes is more than the %d a ConfigMap may hold; put large data in the workspace and pass its path", size, maxConfigBytes))
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
		return diag.Diagnostics{diag.Errorf(loc, "%q names a credential; %s", key, secretHint)}
	}
	var diags diag.Diagnostics
	switch kind {
	case cue.NullKind:
		return diag.Diagnostics{diag.Errorf(loc, "is null; give it a value or drop it")}
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
	if diags := checkCredential(key, s, loc); diags != nil {
		return diags
	}
	if m := anyRef.FindStringSubmatch(s); m != nil {
		return diag.Diagnostics{diag.Errorf(loc, "${%s}: configs become a ConfigMap that exists before the run, so no engine fills in references there; pass the value through a step's env: instead", m[1])}
	}
	return nil
}

// lowerConfigs makes the ConfigMap, named after the pipeline and its
// content, as kustomize's configMapGenerator names them: a run with
// edited configs gets a new ConfigMap and never reads the old one.
func (lw *lowering) lowerConfigs() {
	if len(lw.spec.Configs) == 0 {
		return
	}
	data := map[string]string{}
	for _, e := range lw.spec.Configs {
		data[e.Key] = e.Value
	}
	lw.p.Config = &ir.ConfigMap{Name: lw.p.Name + "-" + contentHash(data), Data: data}
}

// contentHash is ten characters of the SHA-256 of data, keys sorted,
// spelt as kustomize spells its suffixes: hex with 0, 1, 3, a and e
// replaced by g, h, k, m and t, so that no suffix reads as a word or a
// number.
func contentHash(data map[string]string) string {
	h := sha256.New()
	for _, k := range sortedKeys(data) {
		// Each key and value with its length, so that no two maps collide.
		fmt.Fprintf(h, "%d:%s%d:%s", len(k), k, len(data[k]), data[k])
	}
	sum := hex.EncodeToString(h.Sum(nil))[:10]
	return strings.NewReplacer("0", "g", "1", "h", "3", "k", "a", "m", "e", "t").Replace(sum)
}

// configEnv is one variable per key of the pipeline's ConfigMap.
func (lw *lowering) configEnv() []ir.EnvVar {
	cm := lw.p.Config
	if cm == nil {
		return nil
	}
	var out []ir.EnvVar
	for _, k := range sortedKeys(cm.Data) {
		out = append(out, ir.EnvVar{Name: k, Config: &ir.ConfigKey{ConfigMap: cm.Name, Key: k}})
	}
	return out
}
