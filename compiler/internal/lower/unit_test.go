package lower

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
)

func TestNameSet(t *testing.T) {
	ns := newNameSet()
	var got []string
	for _, n := range []string{"Download_Data", "download-data", "download data", "train"} {
		c, ok := ns.take(n, n)
		if !ok {
			t.Fatalf("%q refused", n)
		}
		got = append(got, c)
	}
	if diff := cmp.Diff([]string{"download-data", "download-data-2", "download-data-3", "train"}, got); diff != "" {
		t.Fatalf("names (-want +got):\n%s", diff)
	}
	if _, ok := ns.take("__", "__"); ok {
		t.Fatal("a name with no letters or digits was accepted")
	}
	long := strings.Repeat("x", 100)
	if c, _ := ns.take(long, long); len(c) > ir.MaxNameLen {
		t.Fatalf("name of %d characters", len(c))
	}
	if v := labelValue("MLCommons FeTS/v1"); v != "MLCommons-FeTS-v1" {
		t.Fatalf("label value %q", v)
	}
}
