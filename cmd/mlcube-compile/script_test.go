package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets the test binary run as the mlcube-compile command inside
// the scripts of testdata/script.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){"mlcube-compile": main})
}

// goEnv are Go's caches, for the scripts that build with go.
var goEnv = func() map[string]string {
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH").Output()
	v := strings.Split(strings.TrimSpace(string(out)), "\n")
	if err != nil || len(v) != 3 {
		return nil
	}
	return map[string]string{"GOCACHE": v[0], "GOMODCACHE": v[1], "GOPATH": v[2]}
}()

// TestScripts runs the CLI scripts: each command, flag and exit code as a
// user types them. $EXAMPLES and $SHARED are the repository's examples and
// ../shared/cubes, $REPO the repository. go test -update rewrites the files the scripts cmp
// against.
func TestScripts(t *testing.T) {
	examples, err := filepath.Abs(filepath.Join(repoRoot, "examples"))
	if err != nil {
		t.Fatal(err)
	}
	shared, _ := filepath.Abs(filepath.Join(repoRoot, "..", "shared", "cubes"))
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/script",
		UpdateScripts: *update,
		Setup: func(env *testscript.Env) error {
			env.Setenv("EXAMPLES", examples)
			env.Setenv("SHARED", shared)
			env.Setenv("REPO", filepath.Dir(examples))
			// A script that builds with go keeps this test's caches:
			// a script's HOME is none.
			for k, v := range goEnv {
				env.Setenv(k, v)
			}
			return nil
		},
		Condition: func(cond string) (bool, error) {
			if cond == "shared" {
				_, err := os.Stat(shared)
				return err == nil, nil
			}
			return false, errors.New("unknown condition " + cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// exits N CMD ARGS... runs a command, keeps its stdout and
			// stderr for the next checks, and wants exit status N.
			"exits": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) < 2 {
					ts.Fatalf("usage: exits N command [args...]")
				}
				want, err := strconv.Atoi(args[0])
				if err != nil {
					ts.Fatalf("exits: %v", err)
				}
				got := 0
				var exit *exec.ExitError
				if err := ts.Exec(args[1], args[2:]...); errors.As(err, &exit) {
					got = exit.ExitCode()
				} else if err != nil {
					ts.Fatalf("exits: %v", err)
				}
				if got != want {
					ts.Fatalf("exit status %d, want %d", got, want)
				}
			},
		},
	})
}
