//go:build e2e

package e2e

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mlcube-compile/mlcube-compile/internal/manifestcheck"
	"sigs.k8s.io/yaml"
)

// TestE2EDryRunGoldens creates every document of every golden file with
// `kubectl create --dry-run=server`, and every MPIJob, DaskJob and
// DaskAutoscaler that a run would create from inside a step, and each
// ResourceClaimTemplate an Argo run applies as its first task. The API
// server checks each against the installed CRD's schema (or, for core
// kinds, its own validation), so a wrong type, an unknown field or a
// missing required field fails here as it would for a user.
func TestE2EDryRunGoldens(t *testing.T) {
	c := e2eCluster(t)
	var documents, embedded atomic.Int64
	for _, backend := range backendNames {
		for _, path := range goldenFiles(t, backend) {
			name := backend + "/" + strings.TrimSuffix(filepath.Base(path), ".yaml")
			t.Run(name, func(t *testing.T) {
				docs := goldenDocuments(t, path)
				for _, doc := range docs {
					c.dryRun(t, doc)
					documents.Add(1)
				}
				for _, tmpl := range manifestcheck.AppliedClaimTemplates(t, name, docs[len(docs)-1]) {
					c.dryRun(t, asSubmitted(tmpl))
					embedded.Add(1)
				}
				for _, job := range manifestcheck.EmbeddedJobs(t, backend, strings.Join(docs, "\n---\n")) {
					manifest, err := json.Marshal(job)
					if err != nil {
						t.Fatal(err)
					}
					c.dryRun(t, asSubmitted(string(manifest)))
					embedded.Add(1)
				}
			})
		}
	}
	t.Logf("dry-run on the API server: %d golden documents and %d embedded jobs accepted", documents.Load(),
		embedded.Load())
}

// dryRun asks the API server to create manifest without storing it, in
// its namespace, which is created first if need be.
func (c *cluster) dryRun(t *testing.T, manifest string) {
	t.Helper()
	var meta struct {
		Kind     string
		Metadata struct{ Name, GenerateName, Namespace string }
	}
	if err := yaml.Unmarshal([]byte(manifest), &meta); err != nil {
		t.Fatal(err)
	}
	c.namespace(t, meta.Metadata.Namespace)
	if _, err := c.run(manifest, "create", "--dry-run=server", "-o", "name", "-f", "-"); err != nil {
		t.Errorf("%s %s%s: refused: %v", meta.Kind, meta.Metadata.Name, meta.Metadata.GenerateName, err)
	}
}
