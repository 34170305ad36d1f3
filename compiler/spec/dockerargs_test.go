package spec

import (
	"strings"
	"testing"

	"github.com/mlcube-compile/mlcube-compile/compiler/source"
)

func TestDockerArgs(t *testing.T) {
	at := source.Flag("docker").Field("gpu_args")
	fx, diags := MapDockerArgs(DockerArgs{Text: `--gpus=2 --shm-size 1G --ipc=host -v /data:/data -e "A=b c" --cpus=4 --memory=8g`, Loc: at})
	if fx.GPUs == nil || *fx.GPUs != 2 || fx.ShmSize != "1Gi" || fx.CPU != "4" || fx.Memory != "8Gi" {
		t.Fatalf("effects %+v", fx)
	}
	if len(fx.Env) != 1 || fx.Env[0].Name != "A" || fx.Env[0].Value != "b c" {
		t.Fatalf("env %+v", fx.Env)
	}
	warnings := diags.Warnings()
	if len(warnings) != 2 || !strings.Contains(warnings[0].Message, "--ipc=host") || !strings.Contains(warnings[1].Message, "-v=/data:/data") {
		t.Fatalf("warnings %v", warnings)
	}
	_, diags = MapDockerArgs(DockerArgs{Text: `--shm-size=lots --gpus=x "unclosed`, Loc: at})
	if !diags.HasErrors() {
		t.Fatal("bad flags were accepted")
	}
}
