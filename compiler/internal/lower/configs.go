package lower

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/spec"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
)

// configMap makes the ConfigMap of configs, named after the pipeline
// and its content, as kustomize's configMapGenerator names them: a run
// with edited configs gets a new ConfigMap and never reads the old one.
// nil for no configs.
func configMap(pipeline string, configs []spec.ConfigEntry) *ir.ConfigMap {
	if len(configs) == 0 {
		return nil
	}
	data := map[string]string{}
	for _, e := range configs {
		data[e.Key] = e.Value
	}
	return &ir.ConfigMap{Name: pipeline + "-" + contentHash(data), Data: data}
}

// contentHash is ten characters of the SHA-256 of data, keys sorted,
// spelt as kustomize spells its suffixes: hex with 0, 1, 3, a and e
// replaced by g, h, k, m and t, so that no suffix reads as a word or a
// number.
func contentHash(data map[string]string) string {
	h := sha256.New()
	for _, k := range slices.Sorted(maps.Keys(data)) {
		// Each key and value with its length, so that no two maps collide.
		fmt.Fprintf(h, "%d:%s%d:%s", len(k), k, len(data[k]), data[k])
	}
	sum := hex.EncodeToString(h.Sum(nil))[:10]
	return strings.NewReplacer("0", "g", "1", "h", "3", "k", "a", "m", "e", "t").Replace(sum)
}

// configEnv is one variable per key of the pipeline's ConfigMap cm.
func configEnv(cm *ir.ConfigMap) []ir.EnvVar {
	if cm == nil {
		return nil
	}
	var out []ir.EnvVar
	for _, k := range slices.Sorted(maps.Keys(cm.Data)) {
		out = append(out, ir.EnvVar{Name: k, Config: &ir.ConfigKey{ConfigMap: cm.Name, Key: k}})
	}
	return out
}
