package lower

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
)

func TestNameSet(t *testing.T) {
	ns := newNameSet("workspace")
	var got []string
	for _, n := range []string{"Download_Data", "download-data", "download data", "train", "workspace"} {
		c, ok := ns.take(n, n)
		if !ok {
			t.Fatalf("%q refused", n)
		}
		got = append(got, c)
	}
	want := []string{"download-data", "download-data-2", "download-data-3", "train", "workspace-2"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("names (-want +got):\n%s", diff)
	}
	if o := ns.taken["download-data-2"]; o != "download-data" {
		t.Errorf("download-data-2 was taken for %q", o)
	}
	if _, ok := ns.take("__", "__"); ok {
		t.Fatal("a name with no letters or digits was accepted")
	}
	if c, _ := ns.take("x", "__", "input"); c != "input" {
		t.Errorf("the second spelling: %q", c)
	}
	long := strings.Repeat("x", 100)
	if c, _ := ns.take(long, long); len(c) > ir.MaxNameLen {
		t.Fatalf("name of %d characters", len(c))
	}
	if c, _ := ns.take(long, long); len(c) > ir.MaxNameLen || !strings.HasSuffix(c, "-2") {
		t.Fatalf("a long name taken twice: %q", c)
	}
	if v := labelValue("MLCommons FeTS/v1"); v != "MLCommons-FeTS-v1" {
		t.Fatalf("label value %q", v)
	}
}
