package house

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// floors are the oldest versions go.mod may require, each for a reason
// that makes anything older wrong to ship (issue 49, point 17).
var floors = []struct{ module, version, why string }{
	{"github.com/tektoncd/pipeline", "v1.15.1", "the LTS line's patch"},
	{"github.com/google/cel-go", "v0.30.0", "the security fix Argo took"},
	{"k8s.io/api", "v0.36.6", "the newest v0.36 patch the module proxy serves"},
}

// TestPinnedVersions holds the versions the project builds against to
// what it runs and says: go.mod's floors, one version for every
// Kubernetes staging module of the v0.36 line, the e2e cluster's Tekton
// and Argo (scripts/e2e/versions.sh, and the operators' module that
// builds Tekton) equal to go.mod's, and docs/backends.md naming them.
func TestPinnedVersions(t *testing.T) {
	root := repoRoot(t)
	mods := requires(t, filepath.Join(root, "go.mod"))
	for _, f := range floors {
		if v := mods[f.module]; v == "" || versionLess(v, f.version) {
			t.Errorf("go.mod requires %s %q, want %s or later (%s)", f.module, v, f.version, f.why)
		}
	}
	for m, v := range mods {
		if strings.HasPrefix(m, "k8s.io/") && strings.HasPrefix(v, "v0.36.") && v != mods["k8s.io/api"] {
			t.Errorf("go.mod requires %s %s, but k8s.io/api %s: the staging modules move together", m, v, mods["k8s.io/api"])
		}
	}
	pins := shellVars(t, filepath.Join(root, "scripts", "e2e", "versions.sh"))
	ops := requires(t, filepath.Join(root, "scripts", "e2e", "operators", "go.mod"))
	doc := readText(t, filepath.Join(root, "docs", "backends.md"))
	for _, p := range []struct{ module, pin string }{
		{"github.com/tektoncd/pipeline", "TEKTON_VERSION"},
		{"github.com/argoproj/argo-workflows/v3", "ARGO_VERSION"},
		{"github.com/argoproj/argo-workflows/v4", "ARGO4_VERSION"},
	} {
		if mods[p.module] != pins[p.pin] {
			t.Errorf("go.mod requires %s %s, but versions.sh's %s is %q: the e2e cluster runs what the compiler checks against",
				p.module, mods[p.module], p.pin, pins[p.pin])
		}
		if !strings.Contains(doc, pins[p.pin]+"'s") {
			t.Errorf("docs/backends.md does not name %s (%s)", pins[p.pin], p.module)
		}
	}
	if v := ops["github.com/tektoncd/pipeline"]; v != pins["TEKTON_VERSION"] {
		t.Errorf("scripts/e2e/operators/go.mod requires Tekton %q, versions.sh %q: build.sh would refuse to build", v,
			pins["TEKTON_VERSION"])
	}
	if !strings.Contains(doc, "upstream supports 4.0 and 4.1") ||
		!strings.Contains(doc, "We recommend **"+pins["ARGO4_VERSION"]+"**") {
		t.Error("docs/backends.md does not say that upstream supports only Argo 4.0 and 4.1, and which version we recommend")
	}
}

func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for ; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		if filepath.Dir(dir) == dir {
			t.Fatal("no go.mod above the test's folder")
		}
	}
}

func readText(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var requireLine = regexp.MustCompile(`(?m)^(?:require\s+|\t)(\S+) (v\S+)(?: // indirect)?$`)

// requires maps each module a go.mod requires to its version.
func requires(t *testing.T, name string) map[string]string {
	out := map[string]string{}
	for _, m := range requireLine.FindAllStringSubmatch(readText(t, name), -1) {
		out[m[1]] = m[2]
	}
	return out
}

var shellVar = regexp.MustCompile(`(?m)^([A-Z0-9_]+)=(\S*)$`)

// shellVars maps each NAME=VALUE line of a shell file to its value.
func shellVars(t *testing.T, name string) map[string]string {
	out := map[string]string{}
	for _, m := range shellVar.FindAllStringSubmatch(readText(t, name), -1) {
		out[m[1]] = m[2]
	}
	return out
}

// versionLess compares two release versions vX.Y.Z numerically.
func versionLess(a, b string) bool {
	pa, pb := versionParts(a), versionParts(b)
	for i := range pa {
		if pa[i] != pb[i] {
			return pa[i] < pb[i]
		}
	}
	return false
}

func versionParts(v string) [3]int {
	var out [3]int
	core, _, _ := strings.Cut(strings.TrimPrefix(v, "v"), "-")
	for i, s := range strings.SplitN(core, ".", 3) {
		out[i], _ = strconv.Atoi(s)
	}
	return out
}
