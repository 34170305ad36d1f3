package spec

import (
	"testing"

	"cuelang.org/go/cue/cuecontext"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/source"
)

// TestRunArgsGPUs: --gpus in a 1.0 platform file's run_args asks for its
// count, the number of devices it names, or 1 for all; none without one.
func TestRunArgsGPUs(t *testing.T) {
	at := source.Flag("container").Field("run_args")
	for text, want := range map[string]int{
		"--rm --gpus=all --ipc=host":          1,
		"--gpus all":                          1,
		"--gpus=2":                            2,
		"--gpus 4 --shm-size=1g":              4,
		`--gpus '"device=0,1,3"'`:             3,
		"--gpus count=2,capabilities=utility": 2,
		"--ipc=host":                          -1,
		"--gpus device=0,1":                   -1, // docker's daemon refuses it: MapDockerArgs says so
	} {
		g := runArgsGPUs(DockerArgs{Text: text, Loc: at})
		switch {
		case want < 0 && g != nil:
			t.Errorf("%s: %d GPUs, want none", text, g.Count)
		case want >= 0 && (g == nil || g.Count != want):
			t.Errorf("%s: %+v, want %d", text, g, want)
		}
	}
}

// TestGPUFlagOf: the docker section's --gpus, read as MLCube's
// DeviceSpecs.from_string reads it.
func TestGPUFlagOf(t *testing.T) {
	ctx := cuecontext.New()
	at := source.Flag("docker").Field("--gpus")
	for src, want := range map[string]int{`"all"`: 1, `2`: 2, `"3"`: 3, `"0"`: 0, `-1`: 0, `""`: 0, `"device=0,5"`: 2,
		`"device=GPU-1f22a253"`: 1} {
		g, diags := gpuFlagOf(ctx.CompileString(src), at)
		if len(diags) != 0 || g == nil || g.Count != want {
			t.Errorf("%s: %+v %v, want %d", src, g, diags, want)
		}
	}
	if _, diags := gpuFlagOf(ctx.CompileString(`"many"`), at); !diags.HasErrors() {
		t.Error("--gpus many was accepted")
	}
}
