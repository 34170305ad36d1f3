package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/mlcube-compile/mlcube-compile/compiler"
	"github.com/mlcube-compile/mlcube-compile/driver"
	"github.com/mlcube-compile/mlcube-compile/internal/enginetest"
)

// mapHeavyPipeline has many steps, each with many env vars and node
// selector keys, and many params: every map the compiler iterates.
func mapHeavyPipeline(steps int) string {
	var b strings.Builder
	b.WriteString("params:\n")
	for i := 0; i < 20; i++ {
		fmt.Fprintf(&b, "  p%02d: {default: v%d}\n", i, i)
	}
	b.WriteString("steps:\n")
	for s := 0; s < steps; s++ {
		fmt.Fprintf(&b, "  step-%02d:\n    task: %s\n    env:\n", s, []string{"prepare", "train"}[s%2])
		for e := 0; e < 15; e++ {
			fmt.Fprintf(&b, "      VAR_%02d: ${params.p%02d}-%d\n", e, (s+e)%20, s)
		}
		b.WriteString("    nodeSelector:\n")
		for k := 0; k < 8; k++ {
			fmt.Fprintf(&b, "      example.com/k%d: v%d\n", k, (s+k)%3)
		}
		if s%2 == 1 {
			fmt.Fprintf(&b, "    inputs: {data_dir: data/%02d/}\n    outputs: {model_dir: model/%02d/}\n", s-1, s)
		} else {
			fmt.Fprintf(&b, "    outputs: {data_dir: data/%02d/}\n", s)
		}
	}
	return b.String()
}

func TestDeterministicUnderStress(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped with -short: a stress test, it compiles a 40-step pipeline 101 times on each backend")
	}
	// Without Tekton's affinity assistant, each step keeps its own node
	// selector (with it, steps that share the claim and ask for two
	// values of one label are refused).
	dir := enginetest.WriteFiles(t,
		map[string]string{"mlcube.yaml": enginetest.DemoCube, "p.yaml": mapHeavyPipeline(40), "one.yaml": mapHeavyPipeline(1),
			"platform.yaml": "tekton: {coschedule: disabled}\n"})
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, b := range backendNames {
		pipeline := dir + "/p.yaml"
		if b == "job" {
			pipeline = dir + "/one.yaml"
		}
		args := []string{"mlcube-compile", "--backend", b, "-m", dir, "-t", pipeline, "--platform", dir + "/platform.yaml"}
		first, stderr, code := compileArgs(t, args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", b, code, stderr)
		}
		for _, procs := range []int{1, 8} {
			runtime.GOMAXPROCS(procs)
			for i := 0; i < 50; i++ {
				if out, _, _ := compileArgs(t, args...); out != first {
					t.Fatalf("%s: run %d with GOMAXPROCS=%d differs from the first", b, i, procs)
				}
			}
		}
	}
}

// failingWriter fails every write, as a closed pipe or a full disk does.
type failingWriter struct{ err error }

func (w failingWriter) Write([]byte) (int, error) { return 0, w.err }

func TestWriteErrorsExitOne(t *testing.T) {
	dir := enginetest.WriteFiles(t, map[string]string{"mlcube.yaml": enginetest.DemoCube})
	for _, err := range []error{syscall.EPIPE, syscall.ENOSPC} {
		var stderr bytes.Buffer
		code := run([]string{"mlcube-compile", "-m", dir}, failingWriter{err}, &stderr)
		want := "mlcube-compile: writing the output: " + err.Error() + "\n"
		if code != exitBadSpec || stderr.String() != want {
			t.Errorf("exit %d, stderr %q; want exit 1 and %q", code, stderr.String(), want)
		}
	}
}

// An internal error, or a panic anywhere below run, is reported as a bug
// of ours, with the inputs and without a stack, and exits 1.
func TestInternalErrorsAskForAReport(t *testing.T) {
	args := []string{"mlcube-compile", "-m", "cube-dir"}
	for name, err := range map[string]error{
		"broken": driver.InternalError{Input: driver.Describe(compiler.Options{MLCube: "cube-dir"}),
			Err: errors.New("the validator says no")},
		"panicking": recovered("index out of range", args),
	} {
		var stderr bytes.Buffer
		code := (&session{format: "text"}).report(err, &stderr)
		if code != exitBadSpec {
			t.Errorf("%s: exit %d", name, code)
		}
		for _, want := range []string{"mlcube-compile: internal error compiling ", "cube-dir", "please report"} {
			if !strings.Contains(stderr.String(), want) {
				t.Errorf("%s: stderr lacks %q:\n%s", name, want, stderr.String())
			}
		}
		if strings.Contains(stderr.String(), "goroutine ") || strings.Contains(stderr.String(), ".go:") {
			t.Errorf("%s: stderr shows a stack:\n%s", name, stderr.String())
		}
	}
}

func TestClosedStdoutPipe(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped with -short: it builds the binary with go build, to run it as a process")
	}
	bin := goBuild(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	var stderr bytes.Buffer
	cmd := exec.Command(bin, "--mlcube", filepath.Join(repoRoot, "examples", "mnist"))
	cmd.Stdout, cmd.Stderr = w, &stderr
	err = cmd.Run()
	w.Close()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != exitBadSpec {
		t.Fatalf("got %v, want exit 1; stderr:\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "mlcube-compile: writing the output: ") ||
		!strings.Contains(stderr.String(), "broken pipe") {
		t.Errorf("stderr: %q", stderr.String())
	}
}

// TestGCTunedBeforeHeavyInits: the binary tunes its collector at init,
// before the Kubernetes and Argo packages that Argo's validator brings,
// whose init allocates the most (GODEBUG=inittrace=1 prints each
// package's init in the order run).
func TestGCTunedBeforeHeavyInits(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped with -short: it builds the binary with go build, to run it as a process")
	}
	bin := goBuild(t)
	cmd := exec.Command(bin, "--version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	order := map[string]int{}
	for i, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "init" {
			order[f[1]] = i + 1
		}
	}
	tuned := order["github.com/mlcube-compile/mlcube-compile/cmd/mlcube-compile/internal/gctune"]
	if tuned == 0 {
		t.Fatal("no init of gctune in the trace")
	}
	for _, heavy := range []string{"k8s.io/client-go/kubernetes/scheme", "k8s.io/api/core/v1",
		"github.com/argoproj/argo-workflows/v3/pkg/client/clientset/versioned/scheme"} {
		if order[heavy] != 0 && order[heavy] < tuned {
			t.Errorf("%s's init ran before the collector was tuned", heavy)
		}
	}
}

// goBuild builds mlcube-compile into a temporary folder and returns the
// binary's path.
func goBuild(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "mlcube-compile")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}
