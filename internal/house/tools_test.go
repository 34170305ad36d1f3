package house

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// toolModules are the modules nested in the root's that hold development
// tools: the benchmark's commands and the e2e cluster's build tools.
var toolModules = []string{"bench", "scripts/e2e"}

// TestInstallsOnlyTheCommand: go install ./..., which pre-commit's golang
// hook runs in a clone, builds and installs the command alone; the tools
// sit in modules of their own, where it does not reach them.
func TestInstallsOnlyTheCommand(t *testing.T) {
	list := exec.Command("go", "list", "-f", `{{if eq .Name "main"}}{{.ImportPath}}{{end}}`, "./...")
	list.Dir = repoRoot(t)
	out, err := list.Output()
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Fields(string(out))
	if want := []string{loadRepo(t).module + "/cmd/mlcube-compile"}; !slices.Equal(got, want) {
		t.Errorf("go install ./... would install %v; want only %v (move development tools into a tools' module)", got, want)
	}
}

// TestToolModules vets and tests each tools' module, which go test ./...
// of the root does not reach.
func TestToolModules(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the tools (-short)")
	}
	for _, m := range toolModules {
		for _, args := range [][]string{{"vet", "./..."}, {"test", "./..."}} {
			cmd := exec.Command("go", args...)
			cmd.Dir = filepath.Join(repoRoot(t), m)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("go %s in %s: %v\n%s", strings.Join(args, " "), m, err, out)
			}
		}
	}
}
