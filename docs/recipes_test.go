package docs_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mlcube-compile/mlcube-compile/internal/enginetest"
	"sigs.k8s.io/yaml"
)

// docRecipe returns the code block that follows <!-- recipe: name -->
// in docs/recipes.md.
func docRecipe(t *testing.T, name string) string {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join(repoRoot, "docs", "recipes.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(readme), "<!-- recipe: "+name+" -->\n```")
	if !ok {
		t.Fatalf("docs/recipes.md has no recipe %q", name)
	}
	_, body, _ := strings.Cut(after, "\n")
	block, _, _ := strings.Cut(body, "\n```")
	return block
}

// buildBinary builds mlcube-compile into a temporary folder and returns a
// PATH that finds it first.
func buildBinary(t *testing.T) string {
	t.Helper()
	return filepath.Dir(goBuild(t)) + string(os.PathListSeparator) + os.Getenv("PATH")
}

// goBuild builds mlcube-compile into a temporary folder and returns the
// binary's path.
func goBuild(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "mlcube-compile")
	if out, err := exec.Command("go", "build", "-o", bin, commandDir).CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// shell runs a command line with PATH in dir and returns its output and
// exit code; env adds to the environment.
func shell(t *testing.T, path, dir, line string, env ...string) (string, int) {
	t.Helper()
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", line)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "PATH="+path), env...)
	out, err := cmd.CombinedOutput()
	if exit, ok := err.(*exec.ExitError); ok {
		return string(out), exit.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	return string(out), 0
}

// badCube is a folder holding a cube with a mistake at line 2.
func badCube(t *testing.T) string {
	return enginetest.WriteFiles(t,
		map[string]string{"cube/mlcube.yaml": "name: bad\ndocker: {image: 42}\ntasks: {train: {}}\n"})
}

// Each recipe of docs/recipes.md as written: the GitHub Actions workflows
// (workflow_test.go), the pre-commit hook and the make target.
func TestCIRecipes(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped with -short: it builds the binary with go build, to run the recipes of docs/recipes.md " +
			"as a user would")
	}
	path := buildBinary(t)
	bad := badCube(t)
	t.Run("github-actions", func(t *testing.T) { testReleaseWorkflow(t, bad) })
	t.Run("github-actions-clone", func(t *testing.T) { testCloneWorkflow(t, bad) })
	t.Run("pre-commit", func(t *testing.T) { testPreCommit(t, path, bad) })
	t.Run("make", func(t *testing.T) {
		makefile := filepath.Join(t.TempDir(), "Makefile")
		if err := os.WriteFile(makefile, []byte(docRecipe(t, "make")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, code := shell(t, path, repoRoot, "make -s -f "+makefile+" lint-cubes CUBES=examples"); code != 0 {
			t.Errorf("docs/recipes.md's target: exit %d\n%s", code, out)
		}
		if out, code := shell(t, path, bad, "make -s -f "+makefile+" lint-cubes"); code == 0 {
			t.Errorf("docs/recipes.md's target on a bad cube: exit 0\n%s", out)
		}
		if out, code := shell(t, path, repoRoot, "make -s lint-cubes"); code != 0 || !strings.Contains(out, " 0 errors") {
			t.Errorf("make lint-cubes: exit %d\n%s", code, out)
		}
	})
}

// testPreCommit runs the recipe's hook: its entry on this repository and
// on a bad cube, and, where pre-commit is installed, pre-commit itself
// in a repository holding each. This repository's .pre-commit-hooks.yaml
// serves the same hook for a hosted copy.
func testPreCommit(t *testing.T, path, bad string) {
	var config struct {
		Repos []struct {
			Repo, Rev string
			Hooks     []struct {
				ID, Name, Entry, Language, Files string
				PassFilenames                    bool `json:"pass_filenames"`
			}
		}
	}
	recipe := docRecipe(t, "pre-commit")
	if err := yaml.UnmarshalStrict([]byte(recipe), &config); err != nil {
		t.Fatal(err)
	}
	hook := config.Repos[0].Hooks[0]
	if config.Repos[0].Repo != "local" || hook.Language != "system" || hook.PassFilenames {
		t.Errorf("want a local system hook given no file names: %+v", config.Repos[0])
	}
	if out, code := shell(t, path, repoRoot, hook.Entry); code != 0 {
		t.Errorf("entry on this repository: exit %d\n%s", code, out)
	}
	if _, code := shell(t, path, bad, hook.Entry); code != 1 {
		t.Errorf("entry on a bad cube: exit %d, want 1", code)
	}
	checkHostedHook(t, hook.ID, path, bad)
	if _, err := exec.LookPath("pre-commit"); err != nil {
		t.Log("pre-commit is not installed: its run is not tested")
		return
	}
	for _, c := range []struct {
		cube string
		want int
	}{{"examples/mnist/mlcube.yaml", 0}, {filepath.Join(bad, "cube", "mlcube.yaml"), 1}} {
		src, err := os.ReadFile(filepath.Join(repoRoot, c.cube))
		if filepath.IsAbs(c.cube) {
			src, err = os.ReadFile(c.cube)
		}
		if err != nil {
			t.Fatal(err)
		}
		dir := enginetest.WriteFiles(t, map[string]string{".pre-commit-config.yaml": recipe, "cube/mlcube.yaml": string(src)})
		out, code := shell(t, path, dir, "git init -q . && git add -A && pre-commit run --all-files",
			"PRE_COMMIT_HOME="+t.TempDir())
		if code != c.want {
			t.Errorf("pre-commit run on %s: exit %d, want %d\n%s", c.cube, code, c.want, out)
		}
	}
}

// checkHostedHook checks this repository's .pre-commit-hooks.yaml, which
// serves the hook id to a hosted copy: pre-commit builds the command
// (language: golang), whose name the entry starts with.
func checkHostedHook(t *testing.T, id, path, bad string) {
	raw, err := os.ReadFile(filepath.Join(repoRoot, ".pre-commit-hooks.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var hooks []struct {
		ID, Name, Description, Entry, Language, Files string
		PassFilenames                                 bool `json:"pass_filenames"`
	}
	if err := yaml.UnmarshalStrict(raw, &hooks); err != nil {
		t.Fatal(err)
	}
	for _, h := range hooks {
		if h.ID != id {
			continue
		}
		if h.Language != "golang" || !strings.HasPrefix(h.Entry, "mlcube-compile ") ||
			filepath.Base(mustAbs(t, commandDir)) != "mlcube-compile" {
			t.Errorf("hook %+v does not run this module's mlcube-compile", h)
		}
		files := regexp.MustCompile(h.Files)
		if !files.MatchString("cubes/a/pipeline.yaml") || files.MatchString("main.go") {
			t.Errorf("files: %q should select YAML files only", h.Files)
		}
		if _, code := shell(t, path, bad, h.Entry); code != 1 {
			t.Errorf("entry on a bad cube: exit %d, want 1", code)
		}
		return
	}
	t.Fatalf("the hook %q of docs/recipes.md is not in .pre-commit-hooks.yaml", id)
}

func mustAbs(t *testing.T, p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}
