package spec

import (
	"strings"
	"testing"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/source"
)

func TestDockerArgs(t *testing.T) {
	at := source.Flag("docker").Field("gpu_args")
	fx, diags := MapDockerArgs(DockerArgs{Text: `--gpus=2 --shm-size 1G --ipc=host -v /data:/data -e "A=b c" --cpus=4 ` +
		`--memory=8g`, Loc: at}, 2)
	// --ipc=host gives the host's /dev/shm, whatever --shm-size says.
	if fx.GPUs == nil || *fx.GPUs != 2 || fx.ShmSize != "" || !fx.ShmHost || fx.CPU != "4" || fx.Memory != "8Gi" {
		t.Fatalf("effects %+v", fx)
	}
	if len(fx.Env) != 1 || fx.Env[0].Name != "A" || fx.Env[0].Value != "b c" {
		t.Fatalf("env %+v", fx.Env)
	}
	warnings := diags.Warnings()
	if len(warnings) != 1 || !strings.Contains(warnings[0].Message,
		`"-v=/data:/data" is not applied: a pod mounts no host path`) {
		t.Fatalf("warnings %v", warnings)
	}
	fx, diags = MapDockerArgs(DockerArgs{Text: `--shm-size 1G -v /dev/shm:/dev/shm:rw --ipc=private`, Loc: at}, 0)
	if fx.ShmSize != "" || !fx.ShmHost || len(diags) != 1 ||
		!strings.Contains(diags[0].Message, "IPC namespace of its own") {
		t.Fatalf("effects %+v, diagnostics %v", fx, diags)
	}
	fx, _ = MapDockerArgs(DockerArgs{Text: `--shm-size 1G`, Loc: at}, 0)
	if fx.ShmSize != "1Gi" || fx.ShmHost {
		t.Fatalf("effects %+v", fx)
	}
	_, diags = MapDockerArgs(DockerArgs{Text: `--shm-size=lots --gpus=x "unclosed`, Loc: at}, 1)
	if !diags.HasErrors() {
		t.Fatal("bad flags were accepted")
	}
}

// TestDockerGPUFlags: --runtime=nvidia and --gpus say what a GPU step's
// limit says; a step without GPUs is told they are not applied.
func TestDockerGPUFlags(t *testing.T) {
	at := source.Flag("docker").Field("gpu_args")
	for _, c := range []struct {
		text     string
		gpus     int
		warnings int
	}{
		{"--runtime=nvidia --gpus=all", 1, 0},
		{"--runtime nvidia", 2, 0},
		{"--runtime=nvidia --gpus=all", 0, 2},
		{"--runtime=runc", 1, 1},
	} {
		_, diags := MapDockerArgs(DockerArgs{Text: c.text, Loc: at}, c.gpus)
		if len(diags.Warnings()) != c.warnings || diags.HasErrors() {
			t.Errorf("%q with %d GPUs: %v; want %d warnings", c.text, c.gpus, diags, c.warnings)
		}
	}
}
