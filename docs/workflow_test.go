package docs_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// workflow is a GitHub Actions workflow of docs/recipes.md, as far as the
// tests run it.
// It is read as YAML 1.2, as GitHub reads it: on is a key, not true.
type workflow struct {
	Name string            `yaml:"name"`
	On   []string          `yaml:"on"`
	Env  map[string]string `yaml:"env"`
	Jobs map[string]struct {
		RunsOn string `yaml:"runs-on"`
		Steps  []step `yaml:"steps"`
	} `yaml:"jobs"`
}

// step is one step of a job: an action it uses, or a script it runs.
type step struct {
	Name string         `yaml:"name"`
	Uses string         `yaml:"uses"`
	Run  string         `yaml:"run"`
	With map[string]any `yaml:"with"`
}

// pinnedAction is an action pinned to a commit, its version in a comment,
// as GitHub's hardening guide asks: a tag can be moved.
var pinnedAction = regexp.MustCompile(`(?m)^\s*- uses: [\w-]+/[\w-]+@[0-9a-f]{40}\s+# v\d+\.\d+\.\d+$`)

// readWorkflow reads the recipe name, one job, and checks that every
// action it uses is pinned to a commit, and that it ends with the one
// lint step, in the github form.
func readWorkflow(t *testing.T, name string) (workflow, []step) {
	t.Helper()
	text := docRecipe(t, name)
	var wf workflow
	dec := yaml.NewDecoder(strings.NewReader(text))
	dec.KnownFields(true)
	if err := dec.Decode(&wf); err != nil {
		t.Fatal(err)
	}
	if len(wf.Jobs) != 1 {
		t.Fatalf("want one job, got %d", len(wf.Jobs))
	}
	var steps []step
	for _, job := range wf.Jobs {
		steps = job.Steps
		if job.RunsOn != "ubuntu-latest" || len(steps) < 2 || !strings.HasPrefix(steps[0].Uses, "actions/checkout@") {
			t.Fatalf("want runs-on: ubuntu-latest and steps starting with a checkout, got %+v", job)
		}
	}
	if uses := strings.Count(text, "- uses: "); uses != len(pinnedAction.FindAllString(text, -1)) {
		t.Errorf("every action is pinned to a commit, with its version in a comment:\n%s", text)
	}
	if last := steps[len(steps)-1].Run; last != "mlcube-compile lint --format github ." {
		t.Errorf("want the last step to lint, got %q", last)
	}
	return wf, steps
}

// runSteps runs the run: steps but the last (the lint, which the caller
// runs) as the runner does, in dir, each in bash -eo pipefail with the
// workflow's env laid over by env: a step's additions to $GITHUB_PATH
// come first on PATH for the steps after it. It returns that PATH, and
// the runner's temporary folder ($RUNNER_TEMP).
func runSteps(t *testing.T, wf workflow, steps []step, dir string, env map[string]string) (path, temp string) {
	t.Helper()
	home, temp := t.TempDir(), t.TempDir()
	githubPath := filepath.Join(temp, "github_path")
	vars := append(goCaches(t), "HOME="+home, "RUNNER_TEMP="+temp, "GITHUB_PATH="+githubPath)
	for k, v := range wf.Env {
		if over, ok := env[k]; ok {
			v = over
		}
		vars = append(vars, k+"="+v)
	}
	path = os.Getenv("PATH")
	for _, s := range steps[:len(steps)-1] {
		if s.Run == "" {
			continue
		}
		if out, code := shell(t, path, dir, s.Run, vars...); code != 0 {
			t.Fatalf("step %q: exit %d\n%s", s.Name, code, out)
		}
		if added, err := os.ReadFile(githubPath); err == nil {
			for _, p := range strings.Fields(string(added)) {
				path = p + string(os.PathListSeparator) + path
			}
			os.Remove(githubPath)
		}
	}
	return path, temp
}

// goCaches keep Go's caches where they are when HOME changes, as on a
// runner they stay in its HOME: a build in a new HOME would compile every
// package again, and fetch every module.
func goCaches(t *testing.T) []string {
	t.Helper()
	names := []string{"GOCACHE", "GOMODCACHE", "GOPATH"}
	out, err := exec.Command("go", append([]string{"env"}, names...)...).Output()
	values := strings.Split(strings.TrimSpace(string(out)), "\n")
	if err != nil || len(values) != len(names) {
		t.Fatalf("go env printed no %s: %v", strings.Join(names, ", "), err)
	}
	var env []string
	for i, name := range names {
		env = append(env, name+"="+values[i])
	}
	return env
}

// lintAsTheWorkflow runs the workflow's last step, the lint, with path on
// repo, a checkout of this repository (exit 0), and on a bad cube (exit
// 1, an ::error line).
func lintAsTheWorkflow(t *testing.T, steps []step, path, repo, bad string) {
	t.Helper()
	lint := steps[len(steps)-1].Run
	if out, code := shell(t, path, repo, lint); code != 0 {
		t.Fatalf("on this repository: exit %d\n%s", code, out)
	}
	out, code := shell(t, path, bad, lint)
	if code != 1 || !regexp.MustCompile(`(?m)^::error file=cube/mlcube.yaml,line=2,col=`).MatchString(out) {
		t.Errorf("on a bad cube: exit %d, want 1 and an ::error line\n%s", code, out)
	}
}

// testReleaseWorkflow runs the recipe that installs a released binary:
// make release builds this machine's one target into a folder (with the
// flags this package's own build has, so that the build cache holds all
// but the link), which the recipe fetches with curl, checks against
// SHA256SUMS and installs.
func testReleaseWorkflow(t *testing.T, bad string) {
	if runtime.GOOS+"/"+runtime.GOARCH != "linux/amd64" {
		t.Skip("the recipe installs the linux-amd64 binary")
	}
	wf, steps := readWorkflow(t, "github-actions")
	dist, version := t.TempDir(), "v0.0.0-recipe"
	cgo, err := exec.Command("go", "env", "CGO_ENABLED").Output()
	if err != nil {
		t.Fatal(err)
	}
	release := "make -s release RELEASE_TARGETS=linux/amd64 RELEASE_FLAGS= " +
		"RELEASE_CGO=" + strings.TrimSpace(string(cgo)) + " DIST=" + dist + " VERSION=" + version
	if out, code := shell(t, os.Getenv("PATH"), repoRoot, release); code != 0 {
		t.Fatalf("%s: exit %d\n%s", release, code, out)
	}
	if out, code := shell(t, os.Getenv("PATH"), dist, "sha256sum --check SHA256SUMS"); code != 0 {
		t.Fatalf("SHA256SUMS: exit %d\n%s", code, out)
	}
	path, _ := runSteps(t, wf, steps, t.TempDir(),
		map[string]string{"MLCUBE_COMPILE_RELEASES": "file://" + dist, "MLCUBE_COMPILE_VERSION": version})
	if out, _ := shell(t, path, repoRoot, "mlcube-compile --version"); !strings.HasPrefix(out,
		"mlcube-compile version "+version+" (") {
		t.Errorf("the installed binary is not the release's: %s", out)
	}
	lintAsTheWorkflow(t, steps, path, repoRoot, bad)
}

// testCloneWorkflow runs the recipe that builds the command from a clone
// of this repository at a pinned commit: the clone is of this one, at
// its HEAD, and the lint runs on the clone, whose examples are the
// commit's. Its setup-go step takes Go's version from the clone's go.mod.
func testCloneWorkflow(t *testing.T, bad string) {
	wf, steps := readWorkflow(t, "github-actions-clone")
	head, err := exec.Command("git", "-C", repoRoot, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("not a git clone: %v", err)
	}
	for _, s := range steps {
		if strings.HasPrefix(s.Uses, "actions/setup-go@") &&
			s.With["go-version-file"] != "${{ runner.temp }}/mlcube-compile/go.mod" {
			t.Errorf("setup-go takes Go's version from the clone's go.mod: %v", s.With)
		}
	}
	path, temp := runSteps(t, wf, steps, t.TempDir(),
		map[string]string{"MLCUBE_COMPILE_REPO": mustAbs(t, repoRoot), "MLCUBE_COMPILE_REV": strings.TrimSpace(string(head))})
	if out, _ := shell(t, path, repoRoot, "mlcube-compile --version"); !strings.Contains(out,
		strings.TrimSpace(string(head))) {
		t.Errorf("the built binary is not of the commit: %s", out)
	}
	lintAsTheWorkflow(t, steps, path, filepath.Join(temp, "mlcube-compile"), bad)
}
