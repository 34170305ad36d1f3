package spec

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// An unknown key suggests the nearest field the schema allows at its
// place: in a struct, behind a mapping's pattern (tasks), in a list's
// items (authors), in a disjunction (a param is a path or a mapping).
func TestUnknownFieldSuggestions(t *testing.T) {
	const tail = "\ntasks: {t: {}}\n"
	for _, tc := range []struct {
		cube, want string
	}{
		{"name: n\ndocker: {imgae: x}" + tail, `cube/mlcube.yaml:2:10: docker.imgae: unknown field; did you mean "image"?`},
		{"name: n\nplatfrom: {}" + tail, `cube/mlcube.yaml:2:1: platfrom: unknown field; did you mean "platform"?`},
		{"name: n\nauthors: [{nmae: x}]" + tail, `cube/mlcube.yaml:2:12: authors[0].nmae: unknown field; did you mean "name"?`},
		{"name: n\ntasks: {t: {entrypont: x}}\n", `cube/mlcube.yaml:2:13: tasks.t.entrypont: unknown field; did you mean "entrypoint"?`},
		{"name: n\ntasks: {t: {parameters: {inputs: {a: {tpye: file}}}}}\n", `cube/mlcube.yaml:2:39: tasks.t.parameters.inputs.a.tpye: unknown field; did you mean "type"?`},
		{"name: n\ndocker: {registry: x}" + tail, `cube/mlcube.yaml:2:10: docker.registry: unknown field`},
		// A key that reads as a number is an index to CUE.
		{"name: n\ndocker: {7: x}" + tail, `cube/mlcube.yaml:2:10: docker.7: unknown field`},
	} {
		_, diags := loadCubeText(t, tc.cube)
		var got []string
		for _, d := range diags {
			got = append(got, d.String())
		}
		if diff := cmp.Diff([]string{tc.want}, got); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tc.cube, diff)
		}
	}
}
