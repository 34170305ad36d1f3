//go:build e2e

package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// The e2e suite runs against the cluster that scripts/e2e/up.sh starts:
// a real kube-apiserver with the CRDs of Argo, Tekton, mpi-operator and
// Dask, KWOK as the kubelet and Argo's workflow-controller. `make e2e`
// builds, starts, tests and stops it.

// cluster runs kubectl against the e2e cluster.
type cluster struct {
	kubectl, kubeconfig string

	mu         sync.Mutex
	namespaces map[string]bool
	reader     reader // quickGet's client
}

var (
	theCluster     *cluster
	theClusterOnce sync.Once
)

// e2eCluster finds the cluster up.sh started, through E2E_KUBECONFIG and
// E2E_KUBECTL, or .e2e/ in the repository.
func e2eCluster(t *testing.T) *cluster {
	t.Helper()
	theClusterOnce.Do(func() {
		root := filepath.Join(repoRoot, ".e2e")
		c := &cluster{
			kubectl:    envOr("E2E_KUBECTL", filepath.Join(root, "bin", "kubectl")),
			kubeconfig: envOr("E2E_KUBECONFIG", filepath.Join(root, "run", "kubeconfig")),
			namespaces: map[string]bool{},
		}
		if _, err := os.Stat(c.kubeconfig); err == nil {
			theCluster = c
		}
	})
	if theCluster == nil {
		t.Fatal("no e2e cluster: run `make e2e`, or scripts/e2e/up.sh first")
	}
	return theCluster
}

func envOr(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return fallback
}

// run runs kubectl with stdin, and returns its stdout, or an error that
// carries its stderr. A plain get is served in-process (quickGet).
func (c *cluster) run(stdin string, args ...string) (string, error) {
	if stdin == "" {
		if out, ok, err := c.quickGet(args); ok {
			return out, err
		}
	}
	cmd := exec.Command(c.kubectl, append([]string{"--kubeconfig", c.kubeconfig}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("kubectl %s: %v: %s", strings.Join(args, " "), err,
			strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}

// must is run for the suite's own set-up, which must not fail.
func (c *cluster) must(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	out, err := c.run(stdin, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// ensure creates an object unless one of that name is there already: the
// set-up a platform team does once (namespaces, service accounts, nodes).
func (c *cluster) ensure(t *testing.T, manifest string) {
	t.Helper()
	if _, err := c.run(manifest, "create", "-f", "-"); err != nil && !strings.Contains(err.Error(), "AlreadyExists") {
		t.Fatal(err)
	}
}

// namespace makes sure a namespace exists, once per run.
func (c *cluster) namespace(t *testing.T, name string) {
	t.Helper()
	if name == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.namespaces[name] {
		c.ensure(t, fmt.Sprintf("apiVersion: v1\nkind: Namespace\nmetadata: {name: %s}\n", name))
		c.namespaces[name] = true
	}
}

// goldenDocuments reads a golden file as its YAML documents.
func goldenDocuments(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var docs []string
	for _, d := range strings.Split(string(data), "\n---\n") {
		if strings.TrimSpace(d) != "" {
			docs = append(docs, d)
		}
	}
	return docs
}

// goldenFiles lists testdata/golden/<backend>/*.yaml by backend.
func goldenFiles(t *testing.T, backend string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(repoRoot, "testdata", "golden", backend, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files for %s: %v", backend, err)
	}
	return files
}

// enginePlaceholder is what Argo or Tekton fills in before a manifest
// reaches the API server: {{workflow.name}}, $(context.pipelineRun.name),
// $(params.x), $(workspaces.w.claim). The kubelet's own $(VAR) is left.
var enginePlaceholder = regexp.MustCompile(`\{\{[^}]*\}\}|\$\((context|params|workspaces|tasks)\.[^)]*\)`)

// asSubmitted fills the engine's placeholders in an embedded manifest with
// a name, as the engine would at run time.
func asSubmitted(manifest string) string {
	return enginePlaceholder.ReplaceAllString(manifest, "e2e-run")
}
