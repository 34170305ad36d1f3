package lower

import (
	"testing"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/spec"
)

// Two workspace paths touch when one is the other or holds it ("" is the
// root); a path inside a folder is written relative to it.
func TestOverlaps(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"data", "data", true}, {"data", "data/x", true}, {"data/x", "data", true}, {"", "data", true},
		{"data", "database", false}, {"data/x", "data/y", false},
	} {
		if got := overlaps(c.a, c.b); got != c.want {
			t.Errorf("overlaps(%q, %q) = %v", c.a, c.b, got)
		}
	}
	if got := inside("data", "data/x/y"); got != "x/y" {
		t.Errorf("inside = %q", got)
	}
	if got := inside("", "data"); got != "data" {
		t.Errorf("inside the root = %q", got)
	}
	if got := shownPath(dataPath{rel: "data", folder: true}); got != "data/" {
		t.Errorf("shownPath = %q", got)
	}
}

// A needed path shows each param's compile-time value; one with no
// value stays a reference.
func TestWithValues(t *testing.T) {
	v := "2024"
	params := []*spec.PipelineParam{{Name: "year", Default: &v}, {Name: "month"}}
	if got := withValues("data/${params.year}/${params.month}/", params); got != "data/2024/${params.month}/" {
		t.Errorf("withValues = %q", got)
	}
}
