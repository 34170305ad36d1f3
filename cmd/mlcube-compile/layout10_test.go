package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mlcube-compile/mlcube-compile/internal/enginetest"
	"github.com/mlcube-compile/mlcube-compile/internal/manifestcheck"
)

// sharedCubes10 finds the MLCommons cubes in the MLCube 1.0 layout, in
// ../shared/cubes-1.0 beside the repository.
func sharedCubes10(t *testing.T) string {
	dir := filepath.Join(repoRoot, "..", "shared", "cubes-1.0")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("skipping: %s is absent", dir)
	}
	return dir
}

// dagOrder is each step of a workflow's DAG with the steps it waits for.
func dagOrder(t *testing.T, out string) map[string]string {
	wf := manifestcheck.ValidateWorkflow(t, "dag", out)
	deps := map[string]string{}
	for _, task := range wf.Spec.Templates[0].DAG.Tasks {
		deps[task.Name] = strings.Join(task.Dependencies, ",")
	}
	return deps
}

// templateArgs is the container arguments of each container template of
// a workflow (the exit handler's are steps and a resource template).
func templateArgs(t *testing.T, out string) map[string]string {
	wf := manifestcheck.ValidateWorkflow(t, "args", out)
	args := map[string]string{}
	for _, tmpl := range wf.Spec.Templates[1:] {
		if tmpl.Container == nil {
			continue
		}
		args[tmpl.Name] = tmpl.Container.Image + " " + strings.Join(tmpl.Container.Args, " ")
	}
	return args
}

// TestMLCube10Layout compiles MLCommons' hello_world and mnist as MLCube
// 1.0's docker runner runs them (docker_run.py, _generate_mounts_and_args:
// the task_name first, then --name=path for each input binding and each
// output binding, $WORKSPACE replaced by the workspace): the whole cube,
// one task by name, and one run file.
func TestMLCube10Layout(t *testing.T) {
	root := filepath.Join(sharedCubes10(t), "mlcube_examples")
	hello := filepath.Join(root, "hello_world")
	wantHello := "mlperf/mlbox_hello_world:0.0.1 hello --name=/mnt/mlcube/names/alice.txt " +
		"--chat=/mnt/mlcube/chats/chat_with_alice.txt"
	for _, args := range [][]string{
		{"--mlcube", hello},
		{"--mlcube", hello, "--task", "hello"},
		{"--task", filepath.Join(hello, "run", "alice", "hello.yaml")},
	} {
		out, stderr, code := compileArgs(t, append([]string{"mlcube-compile"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		if got := templateArgs(t, out)["hello"]; got != wantHello {
			t.Errorf("%v: hello runs %q, want %q", args, got, wantHello)
		}
	}
	// The same arguments on every backend, in the same order.
	helloArgs := regexp.MustCompile(`- hello\s+- --name=/mnt/mlcube/names/alice\.txt\s+- ` +
		`--chat=/mnt/mlcube/chats/chat_with_alice\.txt\n`)
	for _, backend := range backendNames {
		out, stderr, code := compileArgs(t, "mlcube-compile", "--backend", backend, "--mlcube", hello, "--task", "hello")
		if code != 0 || !helloArgs.MatchString(out) || !strings.Contains(out, "image: mlperf/mlbox_hello_world:0.0.1") {
			t.Errorf("%s: exit %d, %s; want hello's arguments and image in\n%s", backend, code, stderr, out)
		}
	}
	out, stderr, code := compileArgs(t, "mlcube-compile", "--mlcube", hello)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// Both write chats/chat_with_alice.txt: the root's task list orders them.
	if deps := dagOrder(t, out); deps["bye"] != "hello" || deps["hello"] != "" {
		t.Errorf("hello_world's order %v, want bye after hello", deps)
	}
	out, stderr, code = compileArgs(t, "mlcube-compile", "--mlcube", filepath.Join(root, "mnist"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if deps := dagOrder(t, out); deps["train"] != "download" {
		t.Errorf("mnist's order %v, want train after download", deps)
	}
	want := "mlperf/mlcube_mnist:0.0.1 train --data_dir=/mnt/mlcube/data " +
		"--parameters_file=/mnt/mlcube/parameters/default.parameters.yaml --log_dir=/mnt/mlcube/train_logs " +
		"--model_dir=/mnt/mlcube/model"
	if got := templateArgs(t, out)["train"]; got != want {
		t.Errorf("mnist's train runs %q, want %q", got, want)
	}
}

// TestMLCube10RunFiles checks the run files of real 1.0 cubes: their order
// follows their data (scimlbench lists only train in its root, and its run
// files sort download, preprocess, test, train), and two run files of one
// task are two steps named by their files, which --task names.
func TestMLCube10RunFiles(t *testing.T) {
	sciml := filepath.Join(realCubesDir, "mlcommons__mlcube_examples__scimlbench-1.0")
	out, stderr, code := compileArgs(t, "mlcube-compile", "--mlcube", sciml)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := map[string]string{"download": "", "preprocess": "download", "train": "preprocess", "test": "train"}
	if deps := dagOrder(t, out); !mapsEqual(deps, want) {
		t.Errorf("scimlbench's order %v, want %v", deps, want)
	}

	algo := filepath.Join(realCubesDir, "mlcommons__algorithmic-efficiency__mlcube")
	out, stderr, code = compileArgs(t, "mlcube-compile", "--mlcube", algo)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	args := templateArgs(t, out)
	if got := args["mnist-jax"]; !strings.HasPrefix(got,
		"mlcommons/algorithmic_efficiency:0.0.1 train --flagfile=/mnt/mlcube/mnist_jax.cfg ") {
		t.Errorf("mnist_jax runs %q", got)
	}
	if deps := dagOrder(t, out); len(deps) != 2 || deps["mnist-jax"] != "" || deps["mnist-pytorch"] != "" {
		t.Errorf("two run files with nothing in common wait for nothing: %v", deps)
	}
	if _, stderr, code = compileArgs(t, "mlcube-compile", "--mlcube", algo, "--task", "mnist_pytorch"); code != 0 {
		t.Errorf("--task mnist_pytorch: exit %d: %s", code, stderr)
	}
	_, stderr, code = compileArgs(t, "mlcube-compile", "--mlcube", algo, "--task", "train")
	if code == 0 || !strings.Contains(stderr, `"train" is the task of several run files`) ||
		!strings.Contains(stderr, "mnist_jax (") {
		t.Errorf("--task train names two run files: exit %d: %s", code, stderr)
	}
	// MLCube 1.0 reads --task NAME as run/NAME.yaml, whatever task it runs.
	dir := enginetest.WriteFiles(t, map[string]string{
		"mlcube.yaml":           "schema_type: mlcube_root\nname: c\ntasks: [tasks/hello.yaml]\n",
		"platforms/docker.yaml": "schema_type: mlcube_platform\ncontainer: {image: a/b:1}\n",
		"tasks/hello.yaml":      "schema_type: mlcube_task\ninputs: [{name: name, type: file}]\n",
		"run/alice.yaml": "schema_type: mlcube_invoke\ntask_name: hello\n" +
			"input_binding: {name: $WORKSPACE/alice.txt}\n",
	})
	out, stderr, code = compileArgs(t, "mlcube-compile", "--backend", "job", "--mlcube", dir, "--task", "alice")
	if code != 0 || !strings.Contains(out, "--name=/mnt/mlcube/alice.txt") {
		t.Errorf("--task alice (run/alice.yaml): exit %d: %s", code, stderr)
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestMLCube10Mistakes checks what MLCube 1.0 itself refuses or reads
// otherwise than the file looks: each is named at its file, line and key.
func TestMLCube10Mistakes(t *testing.T) {
	base := map[string]string{
		"mlcube.yaml": "schema_type: mlcube_root\nname: c\ntasks: [tasks/t.yaml]\n",
		"platforms/docker.yaml": "schema_type: mlcube_platform\nplatform: {name: docker}\n" +
			"container: {image: a/b:1, run_args: --shm-size=1g}\n",
		"tasks/t.yaml": "schema_type: mlcube_task\ninputs:\n  - {name: data, type: directory}\n" +
			"  - {name: model, type: directory}\noutputs:\n  - {name: model, type: directory}\n",
	}
	cases := []struct {
		name, run, want string
		fails           bool
	}{
		{"unknown binding", "input_binding: {dta: $WORKSPACE/d}\n",
			`run/t.yaml:3:17: input_binding.dta: task "t" declares no input "dta" in`, true},
		{"did you mean", "input_binding: {dta: $WORKSPACE/d}\n", `did you mean "data"?`, true},
		{"no task file", "", `no task file`, true},
		{"two paths", "input_binding: {model: $WORKSPACE/m}\noutput_binding: {model: $WORKSPACE/n}\n",
			`"model" is bound as an input to "m" and as an output to "n"`, true},
		{"no $WORKSPACE", "input_binding: {data: data}\n",
			`warning: input_binding.data: path "data" does not start with $WORKSPACE`, false},
		{"a key twice", "input_binding: {}\ninput_binding: {data: $WORKSPACE/d}\n",
			`run/t.yaml:3:1: warning: input_binding: written again below`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			files := map[string]string{"run/t.yaml": "schema_type: mlcube_invoke\ntask_name: t\n" + c.run}
			for k, v := range base {
				if c.name == "no task file" && k == "tasks/t.yaml" {
					files["tasks/other.yaml"] = v
					files["mlcube.yaml"] = strings.Replace(base["mlcube.yaml"], "tasks/t.yaml", "tasks/other.yaml", 1)
					continue
				}
				if _, ok := files[k]; !ok {
					files[k] = v
				}
			}
			dir := enginetest.WriteFiles(t, files)
			out, stderr, code := compileArgs(t, "mlcube-compile", "--mlcube", dir)
			if !strings.Contains(stderr, c.want) {
				t.Errorf("stderr lacks %q:\n%s", c.want, stderr)
			}
			if c.fails != (code != 0) || (c.fails && out != "") {
				t.Errorf("exit %d, stdout %d bytes; want failure %v", code, len(out), c.fails)
			}
		})
	}
	t.Run("run_args and a singularity platform", func(t *testing.T) {
		files := map[string]string{"run/t.yaml": "schema_type: mlcube_invoke\ntask_name: t\n" +
			"input_binding: {data: $WORKSPACE/d}\n"}
		for k, v := range base {
			files[k] = v
		}
		files["platforms/singularity.yaml"] = "schema_type: mlcube_platform\nplatform: {name: singularity}\n" +
			"container: {image: /x.simg}\n"
		dir := enginetest.WriteFiles(t, files)
		out, stderr, code := compileArgs(t, "mlcube-compile", "--mlcube", dir)
		if code != 0 || !strings.Contains(out, "medium: Memory") || !strings.Contains(out, "sizeLimit: 1Gi") {
			t.Errorf("run_args' --shm-size=1g: exit %d, %s\n%s", code, stderr, out)
		}
		_, stderr, code = compileArgs(t, "mlcube-compile", "--mlcube", dir, "--platform",
			filepath.Join(dir, "platforms", "singularity.yaml"))
		if code == 0 || !strings.Contains(stderr, "platform.name: a singularity platform file names an image file") {
			t.Errorf("a singularity platform: exit %d, %s", code, stderr)
		}
	})
}

// TestSharedCubes10Lint lints ../shared/cubes-1.0 as a user's CI would:
// the run files, the cubes and their docker platforms are read, the other
// runners' platform files are left alone, and nothing is wrong.
func TestSharedCubes10Lint(t *testing.T) {
	root := sharedCubes10(t)
	out, stderr, code := compileArgs(t, "mlcube-compile", "lint", root)
	if code != 0 || !strings.Contains(out+stderr, "0 errors, 0 warnings") {
		t.Fatalf("exit %d: %s%s", code, out, stderr)
	}
}

// TestMLCubeCompactLayout compiles a compact .mlcube.yaml as MLCube 1.0
// unpacks it (CompactMLCube in mlcube_metadata.py) and its docker runner
// then runs it: each run is a step named after it, passing the task's
// name and the bindings, sorted as the run file PyYAML writes; a binding
// that names no parameter is dropped with a warning, and a second run of
// one name is refused.
func TestMLCubeCompactLayout(t *testing.T) {
	rnn := filepath.Join(realCubesDir, "mlcommons__training__rnn_speech_recognition-mlcube-compact")
	out, stderr, code := compileArgs(t, "mlcube-compile", "--mlcube", rnn)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := "mlcommons/train_rnn_speech_recognition:0.0.1 train --data_dir=/mnt/mlcube/data/LibriSpeech " +
		"--parameters_file=/mnt/mlcube/parameters.yaml --output_dir=/mnt/mlcube/output"
	if got := templateArgs(t, out)["train"]; got != want {
		t.Errorf("train runs %q, want %q", got, want)
	}
	if deps := dagOrder(t, out); deps["preprocess-data"] != "download-data" || deps["train"] != "preprocess-data" {
		t.Errorf("order %v, want download_data, preprocess_data, train", deps)
	}
	if _, stderr, code = compileArgs(t, "mlcube-compile", "--backend", "job", "--mlcube", rnn, "--task",
		"preprocess_data"); code != 0 {
		t.Errorf("--task preprocess_data: exit %d: %s", code, stderr)
	}
	dir := enginetest.WriteFiles(t, map[string]string{
		".mlcube.yaml": "name: c\ntasks:\n  t:\n    parameters:\n" +
			"      - {name: data, type: directory, io: input}\n    tasks:\n" +
			"      a: {data: $WORKSPACE/d, extra: $WORKSPACE/x}\n  u:\n    parameters: []\n    tasks:\n      a: {}\n",
		"platforms/docker.yaml": "schema_type: mlcube_platform\ncontainer: {image: a/b:1}\n",
	})
	_, stderr, code = compileArgs(t, "mlcube-compile", "--mlcube", dir)
	for _, want := range []string{
		`.mlcube.yaml:7:31: warning: tasks.t.tasks.a.extra: task "t" has no parameter "extra", so MLCube 1.0 ` +
			`drops this binding`,
		`.mlcube.yaml:11:7: tasks.u.tasks.a: a second run named "a"`,
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if code == 0 {
		t.Error("a second run of one name compiled")
	}
}
