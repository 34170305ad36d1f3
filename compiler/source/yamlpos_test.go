package source

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Keys of flow mappings get their own positions at any depth, also after
// the single-pair mappings in flow sequences that make CUE's decoder stop
// handing out positions.
func TestDuplicateKeysInFlowMappingsHavePositions(t *testing.T) {
	for src, want := range map[string][]string{
		"0: [0: 0,0: 0,{0,0,0}]\n":                          {"1:18 0[2].0", "1:20 0[2].0"},
		"a: [k: 1, k: 2, {b: [{c: 1, c: 2}]}]\n":            {"1:29 a[2].b[0].c"},
		"a:\n  - [x: 1, {y: 1,\n      y: 2}]\n  - {z, z}\n": {"3:7 a[0][1].y", "4:9 a[1].z"},
		"a: {b: {c: [d: 1, {e: 1, e: 1}]}}\n":               {"1:26 a.b.c[1].e"},
	} {
		_, diags := ParseYAML("spec.yaml", Flag("spec"), []byte(src))
		var got []string
		for _, d := range diags {
			got = append(got, fmt.Sprintf("%d:%d %s", d.Pos.Line, d.Pos.Col, d.Field))
			if d.Pos.File != "spec.yaml" {
				t.Errorf("%q: diagnostic without its file: %#v", src, d)
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%q: duplicate keys (-want +got):\n%s", src, diff)
		}
	}
}
