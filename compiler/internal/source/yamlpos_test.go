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

// TestSecondParseOnlyWhenPositionsAreMissing: the second parse of
// fillPositions runs only for a file CUE's decoder left a key or value
// without a position in; every example, written in block style with
// flow mappings and lists, needs none (the cases of
// TestDuplicateKeysInFlowMappingsHavePositions check what is filled).
func TestSecondParseOnlyWhenPositionsAreMissing(t *testing.T) {
	for src, want := range map[string]bool{
		"a: 1\nb: [1, 2]\nc: {d: [x, {e: 1}]}\n":       false,
		"steps:\n  s: {task: t, inputs: {src: d0/}}\n": false,
		"0: [0: 0,0: 0,{0,0,0}]\n":                     true,
		"a: [k: 1, k: 2, {b: [{c: 1, c: 2}]}]\n":       true,
		"a: {b: {c: [d: 1, {e: 1, e: 1}]}}\n":          true,
	} {
		f, err := extractYAML("spec.yaml", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		if got := missingPositions(f); got != want {
			t.Errorf("%q: missingPositions = %v, want %v", src, got, want)
		}
	}
}
