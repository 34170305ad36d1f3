//go:build e2e

package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/mlcube-compile/mlcube-compile/driver"
	"github.com/mlcube-compile/mlcube-compile/internal/examples"
)

var (
	// repoRoot is the module's root, where examples/, testdata/ and
	// .e2e/ live: the first folder up from the package's with a go.mod.
	repoRoot string
	// binary is the mlcube-compile that TestMain built.
	binary string
)

// backendNames are the --backend values, in the order help lists them.
var backendNames = driver.Backends()

// TestMain finds the module's root and builds the command into a
// temporary folder, once, as a user would (go build ./cmd/mlcube-compile,
// GOFLAGS and the rest of the environment as go test was given them);
// the tests then run that binary.
func TestMain(m *testing.M) {
	os.Exit(buildAndRun(m))
}

func buildAndRun(m *testing.M) int {
	root, err := moduleRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	repoRoot = root
	dir, err := os.MkdirTemp("", "mlcube-compile-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	binary = filepath.Join(dir, "mlcube-compile")
	build := exec.Command("go", "build", "-o", binary, "./cmd/mlcube-compile")
	build.Dir = root
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: go build ./cmd/mlcube-compile in %s: %v\n", root, err)
		return 1
	}
	return m.Run()
}

// moduleRoot walks up from the working folder (the package's, under go
// test) to the first folder with a go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod in the working folder or above it")
		}
		dir = parent
	}
}

// compileArgs runs the binary TestMain built with args[1:] (args[0] names
// the program, as in os.Args), and returns its stdout, stderr and exit
// code.
func compileArgs(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(binary, args[1:]...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return stdout.String(), stderr.String(), 0
	case errors.As(err, &exit) && exit.Exited():
		return stdout.String(), stderr.String(), exit.ExitCode()
	}
	t.Fatalf("%s: %v\nstderr:\n%s", binary, err, stderr.String())
	return "", "", 0
}

// exampleArgs gives the flags an example is compiled with, by the
// convention of internal/examples.
func exampleArgs(dir string) []string { return examples.At(dir).Args() }

// sharedCubes10 finds the MLCommons cubes in the MLCube 1.0 layout, in
// ../shared/cubes-1.0 beside the repository.
func sharedCubes10(t *testing.T) string {
	dir := filepath.Join(repoRoot, "..", "shared", "cubes-1.0")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("skipping: %s is absent", dir)
	}
	return dir
}
