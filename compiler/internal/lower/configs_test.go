package lower

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/spec"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
)

// The ConfigMap is named after the pipeline and a hash of its content,
// spelt as kustomize spells it; a change of a key or value changes the
// name, the order of the configs does not; each key is a variable.
func TestConfigMap(t *testing.T) {
	if configMap("p", nil) != nil || configEnv(nil) != nil {
		t.Error("no configs, yet a ConfigMap")
	}
	cm := configMap("p", []spec.ConfigEntry{{Key: "B", Value: "2"}, {Key: "A", Value: "1"}})
	same := configMap("p", []spec.ConfigEntry{{Key: "A", Value: "1"}, {Key: "B", Value: "2"}})
	other := configMap("p", []spec.ConfigEntry{{Key: "A", Value: "1"}, {Key: "B", Value: "3"}})
	// No two maps collide by where a key ends and its value starts.
	joined := configMap("p", []spec.ConfigEntry{{Key: "A", Value: "1B2"}})
	if cm.Name != same.Name || cm.Name == other.Name || cm.Name == joined.Name || len(cm.Name) != len("p-")+10 {
		t.Errorf("names %s %s %s %s", cm.Name, same.Name, other.Name, joined.Name)
	}
	// The name of given content never changes: a run would look for
	// another ConfigMap.
	if cm.Name != "p-"+contentHash(map[string]string{"A": "1", "B": "2"}) ||
		contentHash(map[string]string{"A": "1", "B": "2"}) != pinnedHash {
		t.Errorf("%s: the hash of A=1, B=2 is no longer %s", cm.Name, pinnedHash)
	}
	for i := range 100 {
		h := contentHash(map[string]string{"k": strconv.Itoa(i)})
		if strings.ContainsAny(h, "013ae") {
			t.Errorf("%s holds one of 0, 1, 3, a or e, which kustomize spells otherwise", h)
		}
	}
	want := []ir.EnvVar{{Name: "A", Config: &ir.ConfigKey{ConfigMap: cm.Name, Key: "A"}},
		{Name: "B", Config: &ir.ConfigKey{ConfigMap: cm.Name, Key: "B"}}}
	if diff := cmp.Diff(want, configEnv(cm)); diff != "" {
		t.Errorf("env (-want +got):\n%s", diff)
	}
}

// pinnedHash is contentHash of A=1, B=2.
const pinnedHash = "m6df947md5"
