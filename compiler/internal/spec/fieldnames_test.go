package spec

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/source"
	"github.com/mlcube-compile/mlcube-compile/schema"
)

// An unknown key suggests the nearest field the schema allows at its
// place: in a struct, behind a mapping's pattern (tasks), in a list's
// items (authors), in a disjunction (a param is a path or a mapping).
func TestUnknownFieldSuggestions(t *testing.T) {
	const tail = "\ntasks: {t: {}}\n"
	for _, tc := range []struct {
		cube, want string
	}{
		// MLCube's docker runner refuses a key it does not know.
		{"name: n\ndocker: {imgae: x}" + tail,
			`cube/mlcube.yaml:2:10: docker.imgae: unknown key: mlcube run stops before the container starts ` +
				`("Unknown keys: ['imgae']"); did you mean "image"? [MLC161]`},
		{"name: n\nplatfrom: {}" + tail, `cube/mlcube.yaml:2:1: platfrom: unknown field; did you mean "platform"? [MLC158]`},
		{"name: n\nauthors: [{nmae: x}]" + tail,
			`cube/mlcube.yaml:2:12: authors[0].nmae: unknown field; did you mean "name"? [MLC158]`},
		{"name: n\ntasks: {t: {entrypont: x}}\n",
			`cube/mlcube.yaml:2:13: tasks.t.entrypont: unknown field; did you mean "entrypoint"? [MLC158]`},
		{"name: n\ntasks: {t: {parameters: {inputs: {a: {tpye: file}}}}}\n",
			`cube/mlcube.yaml:2:39: tasks.t.parameters.inputs.a.tpye: unknown field; did you mean "type"? [MLC158]`},
		// A key that is no near miss is one MLCube ignores: a warning.
		{"name: n\nplatform: {registry: x}" + tail,
			`cube/mlcube.yaml:2:12: warning: platform.registry: ` + ignoredKey + " [MLC101]"},
		// A key that reads as a number is an index to CUE.
		{"name: n\nplatform: {7: x}" + tail, `cube/mlcube.yaml:2:12: warning: platform.7: ` + ignoredKey + " [MLC101]"},
		{"name: n\nsingularity: {7: x}" + tail,
			`cube/mlcube.yaml:2:15: singularity.7: unknown key: mlcube run stops before the container starts ` +
				`("Unknown keys: ` +
				`['7']"); its keys: runner, image, image_dir, singularity, build_args, run_args, build_file, --network, ` +
				`--security, --nv, --vm-ram, --vm-cpu, --mount_opts [MLC161]`},
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

// Keys MLCube ignores are accepted with a warning each, wherever they are
// (issue 32, point 3), and a near miss of a key MLCube reads stays an
// error with its suggestion beside them and beside other errors: MLCube
// would drop the outputs under outpus without a word.
func TestKeysMLCubeIgnores(t *testing.T) {
	cube := `name: n
authors: [{name: A, email: a@example.com, institution: X}]
platform: {accelerator_count: 0, CUDA_version: "11.2"}
docker: {image: x}
tasks:
  t:
    description: trains
    parameters: {inputs: {cfg: {default: c.yaml, help: the config}}, outpus: {m: model/}}
`
	_, diags := loadCubeText(t, cube)
	var got []string
	for _, d := range diags {
		got = append(got, d.String())
	}
	want := []string{
		"cube/mlcube.yaml:2:43: warning: authors[0].institution: " + ignoredKey + " [MLC101]",
		"cube/mlcube.yaml:3:34: warning: platform.CUDA_version: " + ignoredKey + " [MLC101]",
		"cube/mlcube.yaml:7:5: warning: tasks.t.description: " + ignoredKey + " [MLC101]",
		"cube/mlcube.yaml:8:50: warning: tasks.t.parameters.inputs.cfg.help: " + ignoredKey + " [MLC101]",
		`cube/mlcube.yaml:8:70: tasks.t.parameters.outpus: unknown field; did you mean "outputs"? [MLC158]`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	_, diags = loadCubeText(t, strings.Replace(cube, "outpus", "outputs", 1))
	if diags.HasErrors() || len(diags) != 4 {
		t.Errorf("the ignored keys alone: %v", diags)
	}
}

// An unknown key is one error at the key, with its suggestion, whatever
// else is wrong in the file: beside another error CUE refuses each field
// below the key instead (resouces.cpu, resouces.memory, ...).
func TestUnknownKeyBesideOtherErrors(t *testing.T) {
	const step = "steps:\n  a:\n    task: t\n    resouces: {cpu: 1, memory: 1Gi, gpu: 1}\n"
	for _, other := range []string{"", "    retries: {limit: -1}\n", "    timeout: 5\n"} {
		files := source.New(fstest.MapFS{"p.yaml": {Data: []byte(step + other)}})
		s, err := schema.Load()
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		s.Do(func(sc *schema.Context) {
			l := newLoader(sc, files)
			f := l.readYAML("p.yaml", source.Flag("--task"))
			l.checkPipeline(f)
			for _, d := range l.diags {
				if strings.Contains(d.Field, "resouces") {
					got = append(got, d.String())
				}
			}
		})
		want := []string{`p.yaml:4:5: steps.a.resouces: unknown field; did you mean "resources"? [MLC158]`}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("beside %q (-want +got):\n%s", other, diff)
		}
	}
}
