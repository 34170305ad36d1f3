//go:build e2e

package e2e

import (
	"encoding/json"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mlcube-compile/mlcube-compile/internal/manifestcheck"
	resourcev1 "k8s.io/api/resource/v1"
	"sigs.k8s.io/yaml"
)

// draDeviceCount is how many devices the driver published for the real
// node.
func draDeviceCount(t *testing.T, c *cluster) int {
	t.Helper()
	out := c.must(t, "", "get", "resourceslices", "--field-selector", "spec.nodeName="+realNode+",spec.driver="+draDriver,
		"-o", `jsonpath={range .items[*]}{range .spec.devices[*]}{.name}{"\n"}{end}{end}`)
	n := len(strings.Fields(out))
	if n < 2 {
		t.Fatalf("the driver published %d devices for %s, want 2 or more", n, realNode)
	}
	return n
}

// TestE2EDryRunDRAGoldens creates, with `kubectl create --dry-run=server`,
// every document of each golden file whose name starts with dra-
// (testdata/golden/<backend>/dra-*.yaml), and the jobs its steps create,
// and checks that each device request of its ResourceClaimTemplates and
// ResourceClaims names a DeviceClass the cluster has: a dry-run accepts a
// class that does not exist, and a pod of it would never schedule.
func TestE2EDryRunDRAGoldens(t *testing.T) {
	c := e2eCluster(t)
	files, err := filepath.Glob(filepath.Join(repoRoot, "testdata", "golden", "*", "dra-*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Skip("no DRA golden file (testdata/golden/*/dra-*.yaml) yet")
	}
	classes := map[string]bool{}
	for _, name := range strings.Fields(c.must(t, "", "get", "deviceclasses", "-o",
		`jsonpath={range .items[*]}{.metadata.name}{"\n"}{end}`)) {
		classes[name] = true
	}
	for _, path := range files {
		backend := filepath.Base(filepath.Dir(path))
		t.Run(backend+"/"+strings.TrimSuffix(filepath.Base(path), ".yaml"), func(t *testing.T) {
			c.dryRunDRA(t, backend, goldenDocuments(t, path), classes)
		})
	}
}

// dryRunDRA dry-runs docs (of backend's output) and the jobs their steps
// create on the API server, and checks the device classes their claims
// name against classes.
func (c *cluster) dryRunDRA(t *testing.T, backend string, docs []string, classes map[string]bool) {
	t.Helper()
	claims := 0
	for _, doc := range docs {
		c.dryRun(t, doc)
		var obj struct {
			Kind     string
			Metadata struct{ Name string }
			Spec     json.RawMessage
		}
		if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
			t.Fatal(err)
		}
		var spec resourcev1.ResourceClaimSpec
		switch obj.Kind {
		case "ResourceClaimTemplate":
			var s resourcev1.ResourceClaimTemplateSpec
			if err := json.Unmarshal(obj.Spec, &s); err != nil {
				t.Fatal(err)
			}
			spec = s.Spec
		case "ResourceClaim":
			if err := json.Unmarshal(obj.Spec, &spec); err != nil {
				t.Fatal(err)
			}
		default:
			continue
		}
		claims++
		for _, req := range spec.Devices.Requests {
			var names []string
			if req.Exactly != nil {
				names = append(names, req.Exactly.DeviceClassName)
			}
			for _, sub := range req.FirstAvailable {
				names = append(names, sub.DeviceClassName)
			}
			for _, name := range names {
				if !classes[name] {
					t.Errorf("%s %s: request %s names DeviceClass %q, which the cluster has not (it has %v)",
						obj.Kind, obj.Metadata.Name, req.Name, name, slices.Sorted(maps.Keys(classes)))
				}
			}
		}
	}
	for _, job := range manifestcheck.EmbeddedJobs(t, backend, strings.Join(docs, "\n---\n")) {
		manifest, err := json.Marshal(job)
		if err != nil {
			t.Fatal(err)
		}
		c.dryRun(t, asSubmitted(string(manifest)))
	}
	t.Logf("%d documents accepted, %d of them claims or claim templates", len(docs), claims)
}
