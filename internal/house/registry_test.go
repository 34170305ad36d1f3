package house

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// registry is the file that lists the engines (backends/engines' All):
// the rules that name engines are made from its imports.
const registry = "backends/engines/engines.go"

// registryEngines are the engines' packages, as the registry imports
// them: every package of ours under backends/ it imports but the
// contract, backends/emit.
func registryEngines(root, module string) ([]string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(root, registry), nil, parser.ImportsOnly)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		if pkg, ok := strings.CutPrefix(path, module+"/"); ok && match("backends/...", pkg) && pkg != "backends/emit" {
			out = append(out, pkg)
		}
	}
	slices.Sort(out)
	return out, nil
}

// registryRules adds to flow and never what the registry says: each
// engine imports what engineImports allows, the registry imports each,
// engines never import each other, and neither the engines' helpers nor
// the driver imports one.
func registryRules(engines []string) {
	for _, e := range engines {
		flow[e] = engineImports
		if !slices.Contains(flow["backends/engines"], e) {
			flow["backends/engines"] = append(flow["backends/engines"], e)
		}
		never = append(never, neverRule{[]string{e}, slices.DeleteFunc(slices.Clone(engines), func(o string) bool {
			return o == e
		}), nil, "engines never import each other"})
	}
	never = append(never,
		neverRule{[]string{"backends/internal/..."}, engines, nil, "the engines' helpers never import an engine"},
		neverRule{[]string{"driver"}, engines, nil,
			"the driver knows an engine only by its contract (backends/emit) and finds it in the registry (backends/engines)"})
}

// The repository's registry makes its rules before any test runs.
func init() {
	dir, err := os.Getwd()
	if err != nil {
		panic(err)
	}
	for ; ; dir = filepath.Dir(dir) {
		if mod, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil {
			module := strings.Fields(strings.SplitN(string(mod), "\n", 2)[0])[1]
			engines, err := registryEngines(dir, module)
			if err != nil {
				panic("house: reading the registry: " + err.Error())
			}
			registryRules(engines)
			return
		}
		if filepath.Dir(dir) == dir {
			panic("house: no go.mod above the test's folder")
		}
	}
}

// The registry's engines are read from its imports, and each gets its
// imports, its place in the registry's and the never rules that keep it
// apart from the others, the helpers and the driver.
func TestRegistryRules(t *testing.T) {
	tr := loadRepo(t)
	engines, err := registryEngines(repoRoot(t), tr.module)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"backends/argo", "backends/job", "backends/tekton"}; !slices.Equal(engines, want) {
		t.Errorf("the registry's engines: %v, want %v", engines, want)
	}
	keptApart := func(from, to string) bool {
		return slices.ContainsFunc(never, func(r neverRule) bool {
			return slices.Contains(r.from, from) && slices.Contains(r.to, to)
		})
	}
	for _, e := range engines {
		if !slices.Equal(flow[e], engineImports) || !slices.Contains(flow["backends/engines"], e) ||
			!keptApart("driver", e) || !keptApart("backends/internal/...", e) {
			t.Errorf("%s: its rules are not made from the registry", e)
		}
		for _, o := range engines {
			if o != e && !keptApart(e, o) {
				t.Errorf("no rule keeps %s from importing %s", e, o)
			}
		}
	}
}
