package main

import (
	"bufio"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// realCubesDir holds real cubes and MedPerf container files from public
// repositories, each copied unchanged into a folder of its own with a
// SOURCE file (repository, commit, path).
var realCubesDir = filepath.Join(repoRoot, "testdata", "realcubes")

// refusal is a cube of the corpus the compiler refuses, and why.
type refusal struct{ message, why string }

// TestRealCubes compiles every cube of the corpus on Argo, Tekton (a
// PipelineRun and a Pipeline) and, task by task, the Job backend: each
// compiles, or is refused as REFUSED.tsv says, for a reason a maintainer
// of that cube would accept; and docs/specs.md's table lists each.
func TestRealCubes(t *testing.T) {
	refused := readRefusals(t)
	entries, err := os.ReadDir(realCubesDir)
	if err != nil {
		t.Fatal(err)
	}
	specs, err := os.ReadFile(filepath.Join(repoRoot, "docs", "specs.md"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		n++
		dir := filepath.Join(realCubesDir, e.Name())
		if _, err := os.Stat(filepath.Join(dir, "SOURCE")); err != nil {
			t.Errorf("%s: no SOURCE file", e.Name())
		}
		if !strings.Contains(string(specs), "| "+e.Name()+" |") {
			t.Errorf("docs/specs.md's table of real cubes lacks %s", e.Name())
		}
		t.Run(e.Name(), func(t *testing.T) { compileRealCube(t, dir, refused[e.Name()]) })
	}
	if n < 40 {
		t.Errorf("%d real cubes, want at least 40", n)
	}
}

// compileRealCube compiles one cube everywhere, or checks its refusal.
func compileRealCube(t *testing.T, dir string, want *refusal) {
	cube := cubeArg(t, dir)
	runs := [][]string{{"--backend", "argo"}, {"--backend", "tekton"}, {"--backend", "tekton", "--kind", "pipeline"}}
	for _, task := range taskNames(t, cube) {
		runs = append(runs, []string{"--backend", "job", "--task", task})
	}
	for _, run := range runs {
		_, stderr, code := compileArgs(t, append([]string{"mlcube-compile", "--mlcube", cube}, run...)...)
		first := firstError(stderr)
		switch {
		case want == nil && code != 0:
			t.Errorf("%v: exit %d: %s", run, code, stderr)
		case want != nil && code == 0:
			t.Errorf("%v: compiles, but REFUSED.tsv says it is refused (%s): drop its line", run, want.why)
		case want != nil && !strings.Contains(first, want.message):
			t.Errorf("%v: refused with %q, want %q", run, first, want.message)
		}
		if want != nil {
			return
		}
	}
}

// cubeArg is what --mlcube takes for a corpus folder: the folder when it
// holds mlcube.yaml or container_config.yaml, else its one YAML file.
func cubeArg(t *testing.T, dir string) string {
	var yamls []string
	for _, name := range []string{"mlcube.yaml", "container_config.yaml"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return dir
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".yaml") && !strings.HasPrefix(e.Name(), ".") {
			yamls = append(yamls, filepath.Join(dir, e.Name()))
		}
	}
	if len(yamls) == 1 {
		return yamls[0]
	}
	return dir
}

// taskNames lists the tasks of a cube file, as --task takes them: their
// names, or the run files of the MLCube 1.0 layout.
func taskNames(t *testing.T, cube string) []string {
	if info, err := os.Stat(cube); err == nil && info.IsDir() {
		for _, name := range []string{"mlcube.yaml", ".mlcube.yaml", "container_config.yaml"} {
			if _, err := os.Stat(filepath.Join(cube, name)); err == nil {
				cube = filepath.Join(cube, name)
				break
			}
		}
	}
	data, err := os.ReadFile(cube)
	if err != nil {
		return nil
	}
	var doc struct {
		SchemaType string `json:"schema_type"`
		Tasks      any    `json:"tasks"`
	}
	if yaml.Unmarshal(data, &doc) != nil {
		return nil
	}
	if doc.SchemaType == "mlcube_root" {
		return runFiles(t, filepath.Dir(cube))
	}
	tasks, _ := doc.Tasks.(map[string]any)
	if filepath.Base(cube) == ".mlcube.yaml" {
		// The compact layout: each task's runs are the steps.
		runs := map[string]any{}
		for _, task := range tasks {
			r, _ := task.(map[string]any)["tasks"].(map[string]any)
			maps.Copy(runs, r)
		}
		tasks = runs
	}
	var names []string
	for name := range tasks {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// runFiles lists the run files of a cube in the MLCube 1.0 layout, which
// --task takes each as a task.
func runFiles(t *testing.T, dir string) []string {
	var files []string
	err := filepath.WalkDir(filepath.Join(dir, "run"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".yaml") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatalf("%s: %v", dir, err)
	}
	return files
}

// readRefusals reads REFUSED.tsv: folder, a substring of the refusal's
// first line (empty: any), and why a maintainer would accept it.
func readRefusals(t *testing.T) map[string]*refusal {
	f, err := os.Open(filepath.Join(realCubesDir, "REFUSED.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]*refusal{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "#") || sc.Text() == "" {
			continue
		}
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) != 3 {
			t.Fatalf("REFUSED.tsv: %q: want 3 columns", sc.Text())
		}
		out[cols[0]] = &refusal{message: cols[1], why: cols[2]}
	}
	return out
}

// firstError is the first line of stderr that is not a warning.
func firstError(stderr string) string {
	for _, line := range strings.Split(stderr, "\n") {
		if !strings.Contains(line, ": warning: ") {
			return line
		}
	}
	return ""
}
