package lower

import (
	"strings"
	"testing"

	"github.com/mlcube-compile/mlcube-compile/compiler/source"
	"github.com/mlcube-compile/mlcube-compile/compiler/spec"
)

func TestNameSet(t *testing.T) {
	ns := newNameSet()
	var got []string
	for _, n := range []string{"Download_Data", "download-data", "download data", "train"} {
		c, ok := ns.take(n, n)
		if !ok {
			t.Fatalf("%q refused", n)
		}
		got = append(got, c)
	}
	if strings.Join(got, ",") != "download-data,download-data-2,download-data-3,train" {
		t.Fatalf("got %v", got)
	}
	if _, ok := ns.take("__", "__"); ok {
		t.Fatal("a name with no letters or digits was accepted")
	}
	long := strings.Repeat("x", 100)
	if c, _ := ns.take(long, long); len(c) > maxNameLen {
		t.Fatalf("name of %d characters", len(c))
	}
	if v := labelValue("MLCommons FeTS/v1"); v != "MLCommons-FeTS-v1" {
		t.Fatalf("label value %q", v)
	}
}

func TestDockerArgs(t *testing.T) {
	at := source.Flag("docker").Field("gpu_args")
	fx, diags := mapDockerArgs(spec.DockerArgs{Text: `--gpus=2 --shm-size 1G --ipc=host -v /data:/data -e "A=b c" --cpus=4 --memory=8g`, Loc: at})
	if fx.gpus == nil || *fx.gpus != 2 || fx.shmSize != "1Gi" || fx.cpu != "4" || fx.memory != "8Gi" {
		t.Fatalf("effects %+v", fx)
	}
	if len(fx.env) != 1 || fx.env[0].Name != "A" || fx.env[0].Value != "b c" {
		t.Fatalf("env %+v", fx.env)
	}
	warnings := diags.Warnings()
	if len(warnings) != 2 || !strings.Contains(warnings[0].Message, "--ipc=host") || !strings.Contains(warnings[1].Message, "-v=/data:/data") {
		t.Fatalf("warnings %v", warnings)
	}
	_, diags = mapDockerArgs(spec.DockerArgs{Text: `--shm-size=lots --gpus=x "unclosed`, Loc: at})
	if !diags.HasErrors() {
		t.Fatal("bad flags were accepted")
	}
}
