package compiler

import (
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

// Pair fills in the cube and the platform file the command line leaves
// out, by where the pipeline or the cube is.
func TestPair(t *testing.T) {
	file := &fstest.MapFile{Data: []byte("x: 1\n")}
	fsys := fstest.MapFS{
		"mlcube.yaml":                  file,
		"platform.yaml":                file,
		"x/mlcube.yaml":                file,
		"x/pipeline.yaml":              file,
		"x/platform.yaml":              file,
		"x/other.yaml":                 file,
		"yml/pipeline.yaml":            file,
		"yml/platform.yml":             file,
		"bare/pipeline.yaml":           file,
		"cube/mlcube.yaml":             file,
		"cube/platform.yaml":           file,
		"legacy/mlcube.yaml":           file,
		"legacy/platforms/docker.yaml": file,
		"legacy/run/kubernetes.yaml":   file,
		"old/mlcube.yaml":              file,
		"old/run/kubernetes.yaml":      file,
		"old/run/platform.yaml":        file,
	}
	for _, tc := range []struct {
		name     string
		in, want Options
		beside   string
	}{
		{"a pipeline's cube and platform are beside it",
			Options{Task: "x/pipeline.yaml"},
			Options{MLCube: "x", Task: "x/pipeline.yaml", Platform: "x/platform.yaml"}, "beside the pipeline"},
		{"platform.yml",
			Options{Task: "yml/pipeline.yaml"},
			Options{MLCube: "yml", Task: "yml/pipeline.yaml", Platform: "yml/platform.yml"}, "beside the pipeline"},
		{"no platform beside the pipeline",
			Options{Task: "bare/pipeline.yaml"},
			Options{MLCube: "bare", Task: "bare/pipeline.yaml"}, ""},
		{"--mlcube . is the current folder; the platform is still the pipeline's",
			Options{MLCube: ".", Task: "x/pipeline.yaml"},
			Options{MLCube: ".", Task: "x/pipeline.yaml", Platform: "x/platform.yaml"}, "beside the pipeline"},
		{"-p wins",
			Options{Task: "x/pipeline.yaml", Platform: "x/other.yaml"},
			Options{MLCube: "x", Task: "x/pipeline.yaml", Platform: "x/other.yaml"}, ""},
		{"a cube alone, with the platform beside it",
			Options{MLCube: "cube"},
			Options{MLCube: "cube", Platform: "cube/platform.yaml"}, "beside the cube"},
		{"a cube file",
			Options{MLCube: "cube/mlcube.yaml"},
			Options{MLCube: "cube/mlcube.yaml", Platform: "cube/platform.yaml"}, "beside the cube"},
		{"no flags: the current folder",
			Options{},
			Options{MLCube: ".", Platform: "platform.yaml"}, "beside the cube"},
		{"a task name pairs as no pipeline does",
			Options{MLCube: "cube", Task: "train"},
			Options{MLCube: "cube", Task: "train", Platform: "cube/platform.yaml"}, "beside the cube"},
		{"a pipeline file not there still names its folder",
			Options{Task: "x/missing.yaml"},
			Options{MLCube: "x", Task: "x/missing.yaml", Platform: "x/platform.yaml"}, "beside the pipeline"},
		{"a legacy invoke file: the cube above run/, its platforms/docker.yaml",
			Options{Task: "legacy/run/kubernetes.yaml"},
			Options{MLCube: "legacy", Task: "legacy/run/kubernetes.yaml", Platform: "legacy/platforms/docker.yaml"},
			"the legacy cube's platforms/docker.yaml"},
		{"a legacy invoke file without platforms/docker.yaml: the platform beside it",
			Options{Task: "old/run/kubernetes.yaml"},
			Options{MLCube: "old", Task: "old/run/kubernetes.yaml", Platform: "old/run/platform.yaml"}, "beside the pipeline"},
		{"a legacy invoke file with --mlcube given",
			Options{MLCube: "cube", Task: "legacy/run/kubernetes.yaml"},
			Options{MLCube: "cube", Task: "legacy/run/kubernetes.yaml"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.in.FS = fsys
			got := Pair(tc.in)
			got.Options.FS, tc.in.FS = nil, nil
			if diff := cmp.Diff(tc.want, got.Options); diff != "" {
				t.Errorf("options (-want +got):\n%s", diff)
			}
			wantPlatform := ""
			if tc.beside != "" {
				wantPlatform = tc.want.Platform
			}
			if got.Platform != wantPlatform || got.Beside != tc.beside {
				t.Errorf("chose %q (%q), want %q (%q)", got.Platform, got.Beside, wantPlatform, tc.beside)
			}
		})
	}
}
