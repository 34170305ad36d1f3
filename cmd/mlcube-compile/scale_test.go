package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mlcube-compile/mlcube-compile/backends/argo"
	"github.com/mlcube-compile/mlcube-compile/internal/enginetest"
	"github.com/mlcube-compile/mlcube-compile/internal/manifestcheck"
	"github.com/mlcube-compile/mlcube-compile/internal/specgen"
)

// largePipeline writes specgen's cube and a pipeline of n steps in a
// shape, each step's env set to env when it is not empty.
func largePipeline(t testing.TB, shape specgen.Shape, n int, env string) string {
	text, err := specgen.Pipeline(shape, n, specgen.Options{Env: env})
	if err != nil {
		t.Fatal(err)
	}
	return enginetest.WriteFiles(t, map[string]string{"mlcube.yaml": specgen.Cube, "p.yaml": text})
}

func TestLargePipelines(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped with -short: a scale test, it compiles and validates pipelines of 2,000 to 20,001 steps (the " +
			"slowest test here)")
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
		{steps: 1200, env: strings.Repeat("x", 1000),
			refusal: "p.yaml:1:1: steps: argo: the Workflow would be 2.5 MiB, over Argo's limit on a Workflow of 1.0 MiB " +
				"(split it into several pipelines"},
		{steps: 20000, refusal: "p.yaml:1:1: steps: argo: the Workflow would be 3.4 MiB, over Argo's limit on a Workflow " +
			"of 1.0 MiB (split it into several pipelines"},
		{steps: 20001, refusal: "p.yaml:1:1: steps: 20001 steps is more than the 20000 one pipeline may have (split it " +
			"into several pipelines"},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprint(tc.steps), func(t *testing.T) {
			dir := largePipeline(t, specgen.Chain, tc.steps, tc.env)
			stdout, stderr, code := compileArgs(t, "mlcube-compile", "-m", dir, "-t", dir+"/p.yaml")
			stderr = strings.ReplaceAll(stderr, dir+"/", "")
			if tc.refusal == "" {
				if code != 0 {
					t.Fatalf("exit %d: %s", code, stderr)
				}
				wf := manifestcheck.ValidateWorkflow(t, "chain", stdout)
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

// TestValidatedInWindows compiles pipelines of every shape that Argo's
// validator sees a window at a time, and checks that the validator
// accepts each Workflow whole too.
func TestValidatedInWindows(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped with -short: a scale test, it runs Argo's validator over 300-step Workflows of every shape and " +
			"kind, in windows and whole")
	}
	for _, kind := range argo.Kinds {
		for _, shape := range specgen.Shapes {
			t.Run(string(kind)+"/"+string(shape), func(t *testing.T) {
				dir := largePipeline(t, shape, 300, "")
				args := []string{"mlcube-compile", "-m", dir, "-t", dir + "/p.yaml", "--kind", string(kind)}
				if kind == argo.KindCronWorkflow {
					args = append(args, "--schedule", "0 2 * * *")
				}
				stdout, stderr, code := compileArgs(t, args...)
				if code != 0 {
					t.Fatalf("exit %d: %s", code, stderr)
				}
				manifestcheck.ValidateArgo(t, "chain", stdout)
			})
		}
	}
}

// TestGeneratedShapes checks the DAG of each shape specgen writes, as the
// graph command draws it: a chain, a fan out and in, diamonds in a row,
// and the shapes whose steps share paths.
func TestGeneratedShapes(t *testing.T) {
	want := map[specgen.Shape]string{
		specgen.Chain:   "0>1 1>2 2>3 3>4 4>5 5>6",
		specgen.Fan:     "0>1 0>2 0>3 0>4 0>5 1>6 2>6 3>6 4>6 5>6",
		specgen.Diamond: "0>1 0>2 1>3 2>3 3>4 3>5 4>6 5>6",
		// Writers of one path run in declaration order.
		specgen.SharedChain:   "0>1 1>2 2>3 3>4 4>5 5>6",
		specgen.SharedWriters: "0>1 1>2 2>3 3>4 4>5 5>6",
		specgen.SharedReaders: "0>1 0>2 0>3 0>4 0>5 0>6",
	}
	for _, shape := range specgen.Shapes {
		dir := largePipeline(t, shape, 7, "")
		stdout, stderr, code := compileArgs(t, "mlcube-compile", "graph", "-m", dir, "-t", dir+"/p.yaml")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", shape, code, stderr)
		}
		var edges []string
		for _, line := range strings.Split(stdout, "\n") {
			if from, to, ok := strings.Cut(strings.TrimSpace(line), " --> "); ok {
				edges = append(edges, strings.TrimPrefix(from, "step_s0000")+">"+strings.TrimPrefix(to, "step_s0000"))
			}
		}
		if got := strings.Join(edges, " "); got != want[shape] {
			t.Errorf("%s: edges %s, want %s", shape, got, want[shape])
		}
	}
}
