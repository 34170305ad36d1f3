package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// writeFiles lays out a spec tree in a temporary folder.
func writeFiles(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const goodCube = `name: demo
docker: {image: example/demo:1}
tasks:
  prepare:
    parameters:
      outputs: {data_dir: data/}
  train:
    parameters:
      inputs: {data_dir: data/}
      outputs: {model_dir: model/}
`

var diagLine = regexp.MustCompile(`^\S+:\d+:\d+: \S+: .+$`)

func TestBadInput(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string
		args  []string
		// want are the stderr lines, with $DIR for the temporary folder.
		want []string
		code int
	}{{
		name: "three independent mistakes are all reported",
		files: map[string]string{"mlcube.yaml": `description: no name
platform:
  accelerator_count: two
docker:
  image: x/y:1
  gpu_ars: "--gpus=all"
tasks:
  train: {}
`},
		want: []string{
			"$DIR/mlcube.yaml:1:1: name: missing required field",
			`$DIR/mlcube.yaml:3:22: platform.accelerator_count: got "two", want int`,
			"$DIR/mlcube.yaml:6:3: docker.gpu_ars: unknown field",
		},
		code: 1,
	}, {
		name: "a cycle names the cycle",
		files: map[string]string{"mlcube.yaml": goodCube, "p.yaml": `steps:
  a: {task: train, after: [b]}
  b: {task: train, after: [a]}
`},
		args: []string{"--task", "$DIR/p.yaml"},
		want: []string{"$DIR/p.yaml:2:3: steps.a: dependency cycle: a -> b -> a"},
		code: 1,
	}, {
		name: "an unknown task lists the cube's tasks",
		files: map[string]string{"mlcube.yaml": goodCube, "p.yaml": `steps:
  fit: {task: trian, after: [nowhere]}
`},
		args: []string{"--task", "$DIR/p.yaml"},
		want: []string{`$DIR/p.yaml:2:9: steps.fit.task: no task "trian" in cube "demo" (tasks: prepare, train)`},
		code: 1,
	}, {
		name: "an unknown after: target",
		files: map[string]string{"mlcube.yaml": goodCube, "p.yaml": `steps:
  train: {after: [nowhere]}
`},
		args: []string{"--task", "$DIR/p.yaml"},
		want: []string{`$DIR/p.yaml:2:19: steps.train.after[0]: no step "nowhere" (steps: train)`},
		code: 1,
	}, {
		name:  "an unresolvable reference",
		files: map[string]string{"mlcube.yaml": strings.Replace(goodCube, "example/demo:1", `"${docker.imgae}"`, 1)},
		want:  []string{"$DIR/mlcube.yaml:2:17: docker.image: ${docker.imgae}: no such key in this file"},
		code:  1,
	}, {
		name:  "a missing cube folder",
		files: map[string]string{},
		args:  []string{"--mlcube", "$DIR/nowhere"},
		want:  []string{"$DIR/nowhere: --mlcube: cannot read: no such file or directory"},
		code:  1,
	}, {
		name:  "an empty file",
		files: map[string]string{"mlcube.yaml": "\n"},
		want:  []string{"$DIR/mlcube.yaml: --mlcube: file is empty"},
		code:  1,
	}, {
		name: "a malformed env file line",
		files: map[string]string{"mlcube.yaml": goodCube, "mlops.env": "# ok\nA=1\nnot a pair\n", "p.yaml": `steps:
  train: {envFile: mlops.env}
`},
		args: []string{"--task", "$DIR/p.yaml"},
		want: []string{`$DIR/mlops.env:3:1: steps.train.envFile: want KEY=VALUE, got "not a pair"`},
		code: 1,
	}, {
		name:  "a YAML syntax error",
		files: map[string]string{"mlcube.yaml": "name: demo\n\tdocker: x\n"},
		want:  []string{"$DIR/mlcube.yaml:2:1: YAML: found a tab character that violates indentation"},
		code:  1,
	}, {
		name:  "a duplicate key",
		files: map[string]string{"mlcube.yaml": "name: demo\nname: again\ntasks: {t: {}}\n"},
		want:  []string{"$DIR/mlcube.yaml:2:1: name: duplicate key; first written at line 1"},
		code:  1,
	}, {
		name:  "a docker flag with a bad value is an error, not a crash",
		files: map[string]string{"mlcube.yaml": strings.Replace(goodCube, "docker: {image: example/demo:1}", `docker: {image: example/demo:1, cpu_args: "--cpus=abc"}`, 1)},
		want:  []string{"$DIR/mlcube.yaml:2:33: docker.cpu_args: --cpus=abc: want a number of CPUs such as 2 or 0.5"},
		code:  1,
	}, {
		name: "Argo template syntax in user text is refused",
		files: map[string]string{"mlcube.yaml": goodCube, "p.yaml": `steps:
  train: {args: ["{{workflow.name}}"]}
`},
		args: []string{"--task", "$DIR/p.yaml"},
		want: []string{`$DIR/p.yaml:2:18: steps.train.args[0]: "{{workflow.name}}" holds "{{", which Argo would expand as a template at run time; remove it (pipeline parameters are written ${params.NAME})`},
		code: 1,
	}, {
		name:  "an unknown backend is a usage error",
		files: map[string]string{"mlcube.yaml": goodCube},
		args:  []string{"--backend", "airflow"},
		want:  []string{`mlcube-compile: unknown backend "airflow" (backends: argo, tekton, job)`, "Run 'mlcube-compile --help' for usage."},
		code:  2,
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeFiles(t, tc.files)
			args := []string{"mlcube-compile", "--mlcube", dir}
			for _, a := range tc.args {
				args = append(args, strings.ReplaceAll(a, "$DIR", dir))
			}
			stdout, stderr, code := compileArgs(t, args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d", code, tc.code)
			}
			if stdout != "" {
				t.Errorf("stdout is not empty:\n%s", stdout)
			}
			got := strings.Split(strings.TrimSpace(strings.ReplaceAll(stderr, dir, "$DIR")), "\n")
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("stderr:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			if tc.code == 1 {
				for _, l := range got {
					if !diagLine.MatchString(l) && !strings.HasPrefix(l, "mlcube-compile: ") && !strings.Contains(l, ": cannot read") && !strings.Contains(l, ": file is") && !strings.Contains(l, ": YAML: ") {
						t.Errorf("not file:line:col: field: message: %q", l)
					}
				}
			}
			if strings.Contains(stderr, "panic") || strings.Contains(stderr, "goroutine") {
				t.Errorf("stderr shows a panic:\n%s", stderr)
			}
		})
	}
}

func TestNamesThatCollideOnceCleaned(t *testing.T) {
	dir := writeFiles(t, map[string]string{"mlcube.yaml": goodCube, "p.yaml": `steps:
  fit_model: {task: train}
  fit-model: {task: train, inputs: {data_dir: other/}}
`})
	out, stderr, code := compileArgs(t, "mlcube-compile", "--mlcube", dir, "--task", filepath.Join(dir, "p.yaml"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	wf := validateWorkflow(t, "collide", out)
	var names []string
	for _, task := range wf.Spec.Templates[0].DAG.Tasks {
		names = append(names, task.Name)
	}
	if strings.Join(names, ",") != "fit-model,fit-model-2" {
		t.Fatalf("task names %v, want fit-model and fit-model-2", names)
	}
}

func TestOutputFileIsWrittenAtomically(t *testing.T) {
	dir := writeFiles(t, map[string]string{"mlcube.yaml": goodCube, "bad/mlcube.yaml": "name: [\n"})
	out := filepath.Join(dir, "wf.yaml")
	if err := os.WriteFile(out, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := compileArgs(t, "mlcube-compile", "--mlcube", filepath.Join(dir, "bad"), "-o", out); code != 1 {
		t.Fatalf("exit %d, want 1: %s", code, stderr)
	}
	if b, _ := os.ReadFile(out); string(b) != "old\n" {
		t.Fatalf("a failed compile changed %s: %q", out, b)
	}
	stdout, stderr, code := compileArgs(t, "mlcube-compile", "--mlcube", dir, "-o", out)
	if code != 0 || stdout != "" {
		t.Fatalf("exit %d, stdout %q: %s", code, stdout, stderr)
	}
	b, _ := os.ReadFile(out)
	validateWorkflow(t, out, string(b))
}

func TestStepEnvBeatsEnvFileAndLegacyClaimsStayApart(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"mlcube.yaml": goodCube,
		"mlops.env":   "A=from-file\nB=file-only\n",
		"p.yaml":      "steps:\n  train: {envFile: mlops.env, env: {A: inline}}\n",
	})
	out, stderr, code := compileArgs(t, "mlcube-compile", "--mlcube", dir, "--task", filepath.Join(dir, "p.yaml"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	wf := validateWorkflow(t, "env", out)
	env := map[string]string{}
	for _, e := range wf.Spec.Templates[1].Container.Env {
		env[e.Name] = e.Value
	}
	if env["A"] != "inline" || env["B"] != "file-only" {
		t.Fatalf("env %v: the step's env must win over its envFile", env)
	}

	legacy := writeFiles(t, map[string]string{
		"mlcube.yaml":           "schema_type: mlcube_root\nname: leg\ntasks: [run/k.yaml]\n",
		"platforms/docker.yaml": "schema_type: mlcube_platform\ncontainer: {image: a/b:1}\n",
		"run/k.yaml":            "schema_type: mlcube_invoke\ntask_name: k\ninput_binding: {a: {path: x, k8s: {pvc: data-1}}}\noutput_binding: {b: {path: y, k8s: {pvc: data.1}}}\n",
	})
	out, stderr, code = compileArgs(t, "mlcube-compile", "--mlcube", legacy)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	wf = validateWorkflow(t, "legacy", out)
	claims := map[string]string{}
	for _, v := range wf.Spec.Volumes {
		claims[v.Name] = v.PersistentVolumeClaim.ClaimName
	}
	if len(claims) != 2 || claims["data-1"] != "data-1" || claims["pvc-data-1"] != "data.1" {
		t.Fatalf("volumes %v: two claims must stay two volumes", claims)
	}
}
