package main

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
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// shell runs a command line with PATH in dir and returns its output and
// exit code.
func shell(t *testing.T, path, dir, line string) (string, int) {
	t.Helper()
	cmd := exec.Command("sh", "-c", line)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+path)
	out, err := cmd.CombinedOutput()
	if exit, ok := err.(*exec.ExitError); ok {
		return string(out), exit.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	return string(out), 0
}

func TestCIRecipes(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped with -short: it builds the binary with go build, to run the recipes of docs/recipes.md as a user would")
	}
	path := buildBinary(t)
	bad := enginetest.WriteFiles(t, map[string]string{"cube/mlcube.yaml": "name: bad\ndocker: {image: 42}\ntasks: {train: {}}\n"})

	t.Run("github-actions", func(t *testing.T) {
		var wf struct {
			Jobs map[string]struct {
				RunsOn string `json:"runs-on"`
				Steps  []struct {
					Uses, Run string
					With      map[string]string
				}
			}
		}
		if err := yaml.Unmarshal([]byte(docRecipe(t, "github-actions")), &wf); err != nil {
			t.Fatal(err)
		}
		for name, job := range wf.Jobs {
			if job.RunsOn == "" || len(job.Steps) == 0 || job.Steps[0].Uses == "" {
				t.Errorf("job %s: want runs-on and steps starting with a checkout", name)
			}
		}
		var lint []string
		for _, job := range wf.Jobs {
			for _, s := range job.Steps {
				if strings.HasPrefix(s.Run, "mlcube-compile ") {
					lint = append(lint, s.Run)
				}
			}
		}
		if len(lint) != 1 || !strings.Contains(lint[0], "--format github") {
			t.Fatalf("want one mlcube-compile lint --format github step, got %q", lint)
		}
		out, code := shell(t, path, repoRoot, lint[0])
		if code != 0 {
			t.Fatalf("on this repository: exit %d\n%s", code, out)
		}
		out, code = shell(t, path, bad, lint[0])
		if code != 1 || !regexp.MustCompile(`(?m)^::error file=cube/mlcube.yaml,line=2,col=`).MatchString(out) {
			t.Errorf("on a bad cube: exit %d, want 1 and an ::error line\n%s", code, out)
		}
	})

	t.Run("pre-commit", func(t *testing.T) {
		var config struct {
			Repos []struct {
				Repo, Rev string
				Hooks     []struct{ ID string }
			}
		}
		if err := yaml.UnmarshalStrict([]byte(docRecipe(t, "pre-commit")), &config); err != nil {
			t.Fatal(err)
		}
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
		want := config.Repos[0].Hooks[0].ID
		for _, h := range hooks {
			if h.ID != want {
				continue
			}
			// language: golang installs the module's commands, so the
			// entry's first word must be this command's name.
			if h.Language != "golang" || !strings.HasPrefix(h.Entry, "mlcube-compile ") || filepath.Base(mustAbs(t, ".")) != "mlcube-compile" {
				t.Errorf("hook %+v does not run this module's mlcube-compile", h)
			}
			files := regexp.MustCompile(h.Files)
			if !files.MatchString("cubes/a/pipeline.yaml") || files.MatchString("main.go") {
				t.Errorf("files: %q should select YAML files only", h.Files)
			}
			if out, code := shell(t, path, repoRoot, h.Entry); code != 0 {
				t.Errorf("entry on this repository: exit %d\n%s", code, out)
			}
			if _, code := shell(t, path, bad, h.Entry); code != 1 {
				t.Errorf("entry on a bad cube: exit %d, want 1", code)
			}
			return
		}
		t.Fatalf("the hook %q of docs/recipes.md is not in .pre-commit-hooks.yaml", want)
	})

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

func mustAbs(t *testing.T, p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}
