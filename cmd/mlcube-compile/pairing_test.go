package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlcube-compile/mlcube-compile/diag"
)

// Every example compiles from the repository root with only --task (or
// --mlcube, for a cube without a pipeline file), and -f for its values
// file, to its golden file byte for byte: its cube and its platform.yaml
// are found beside the pipeline, as lint finds them, and stderr says,
// with -v, which platform file was read. The folder alone, as helm
// template takes a chart's, compiles the same.
func TestExamplesFromRepoRoot(t *testing.T) {
	t.Chdir(repoRoot)
	dirs, err := filepath.Glob(filepath.Join("examples", "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	for _, dir := range dirs {
		flagArgs, note := shortestArgs(dir)
		for _, backend := range backendNames {
			golden := filepath.Join("testdata", "golden", backend, filepath.Base(dir)+".yaml")
			if _, err := os.Stat(golden); err != nil {
				continue
			}
			// The folder alone, as helm template takes a chart's, is the
			// same compilation.
			for form, args := range map[string][]string{"flags": flagArgs, "folder": append([]string{dir}, flagArgs[2:]...)} {
				t.Run(backend+"/"+filepath.Base(dir)+"/"+form, func(t *testing.T) {
					compileFromRoot(t, backend, golden, note, args)
				})
			}
		}
	}
}

// compileFromRoot compiles an example with args, -v for its notes, and
// compares the output with golden and the first line of stderr with note.
func compileFromRoot(t *testing.T, backend, golden, note string, args []string) {
	stdout, stderr, code := compileArgs(t, append([]string{"mlcube-compile", "--backend", backend, "-v"}, args...)...)
	if code != 0 {
		t.Fatalf("mlcube-compile %s: exit %d:\n%s", strings.Join(args, " "), code, stderr)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if stdout != string(want) {
		t.Errorf("mlcube-compile %s differs from %s", strings.Join(args, " "), golden)
	}
	first, _, _ := strings.Cut(stderr, "\n")
	if note != "" && first != note {
		t.Errorf("stderr starts with %q, want %q", first, note)
	}
	if note == "" && strings.Contains(stderr, "["+string(diag.PlatformRead)+"]") {
		t.Errorf("stderr notes a platform file, want none:\n%s", stderr)
	}
}

// shortestArgs are the flags that compile an example from the repository
// root: --task with its pipeline file, else --mlcube with its folder, and
// -f with its values file. note is the line that says which platform file
// was read, if one is.
func shortestArgs(dir string) (args []string, note string) {
	exists := func(name string) bool {
		_, err := os.Stat(filepath.Join(dir, name))
		return err == nil
	}
	beside := "the cube"
	if exists("pipeline.yaml") {
		args, beside = []string{"--task", filepath.Join(dir, "pipeline.yaml")}, "the pipeline"
	} else {
		args = []string{"--mlcube", dir}
	}
	if exists("values.yaml") {
		args = append(args, "-f", filepath.Join(dir, "values.yaml"))
	}
	if exists("platform.yaml") {
		note = filepath.Join(dir, "platform.yaml") +
			": note: --platform: read because it is beside " + beside + "; -p FILE reads another [MLC710]"
	}
	return args, note
}
