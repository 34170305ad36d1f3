package lower

import "testing"

func TestLabelValue(t *testing.T) {
	if v := labelValue("MLCommons FeTS/v1"); v != "MLCommons-FeTS-v1" {
		t.Fatalf("label value %q", v)
	}
}
