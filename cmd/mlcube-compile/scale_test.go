package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
)

// chainCube is a cube with one task that reads a folder and writes one.
const chainCube = `name: chain
docker: {image: example/chain:1}
tasks:
  stage:
    parameters:
      inputs: {src: in/}
      outputs: {dst: out/}
`

// chainPipeline is n steps of one task, each reading what the one before
// it wrote: the shape of a long, generated pipeline. A non-empty env is
// set on every step, with the step's number in front.
func chainPipeline(n int, env string) string {
	var b strings.Builder
	b.WriteString("steps:\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "  s%05d: {task: stage, inputs: {src: d%d/}, outputs: {dst: d%d/}", i, i, i+1)
		if env != "" {
			fmt.Fprintf(&b, ", env: {NOTE: %d-%s}", i, env)
		}
		b.WriteString("}\n")
	}
	return b.String()
}

func BenchmarkCompileChain(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			dir := writeFiles(b, map[string]string{"mlcube.yaml": chainCube, "p.yaml": chainPipeline(n, "")})
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if code := run([]string{"mlcube-compile", "-m", dir, "-t", dir + "/p.yaml"}, io.Discard, io.Discard); code != 0 {
					b.Fatalf("exit %d", code)
				}
			}
		})
	}
}

func TestLargePipelines(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles thousands of steps")
	}
	cases := []struct {
		steps int
		// env, when set, is a value each step's env gets, with the step's
		// name in front so that no two steps share a template.
		env string
		// refusal is in stderr when the pipeline is refused.
		refusal string
	}{
		{steps: 2000},
		{steps: 1200, env: strings.Repeat("x", 1000), refusal: "p.yaml: steps: the Workflow would be 1.8 MiB, over Argo's limit on a Workflow of 1.0 MiB (split it into several pipelines"},
		{steps: 20000, refusal: "p.yaml:1:1: steps: 20000 steps is more than the 2500 one pipeline may have (split it into several pipelines"},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprint(tc.steps), func(t *testing.T) {
			dir := writeFiles(t, map[string]string{"mlcube.yaml": chainCube, "p.yaml": chainPipeline(tc.steps, tc.env)})
			stdout, stderr, code := compileArgs(t, "mlcube-compile", "-m", dir, "-t", dir+"/p.yaml")
			stderr = strings.ReplaceAll(stderr, dir+"/", "")
			if tc.refusal == "" {
				if code != 0 {
					t.Fatalf("exit %d: %s", code, stderr)
				}
				wf := validateWorkflow(t, "chain", stdout)
				raw, _ := json.Marshal(wf)
				if len(raw) > 1<<20 {
					t.Errorf("the Workflow is %d bytes, over Argo's 1 MiB", len(raw))
				}
				t.Logf("%d steps: %d bytes of JSON, %d per step", tc.steps, len(raw), len(raw)/tc.steps)
				return
			}
			if code != 1 || stdout != "" || !strings.HasPrefix(stderr, tc.refusal) {
				t.Errorf("exit %d, stdout %d bytes, stderr:\n%s\nwant it to start with:\n%s", code, len(stdout), stderr, tc.refusal)
			}
		})
	}
}
