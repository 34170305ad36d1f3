//go:build e2e

package e2e

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlcube-compile/mlcube-compile/internal/manifestcheck"
	"sigs.k8s.io/yaml"
)

// TestE2ETektonPipelineStart compiles every example with --backend tekton
// --kind pipeline, creates the documents before the Pipeline (its
// ConfigMap) and the Pipeline itself in namespace e2e-tkn-NAME, through
// Tekton's real webhook, then dry-runs on the API server the PipelineRun
// that `tkn pipeline start NAME -n e2e-tkn-NAME --use-param-defaults`
// makes with the flags the compile's warnings give (tkntest's model of
// tektoncd/cli's start.go, with the warnings' taskRunSpecs added). The
// webhook defaults and validates both; the dry run does not resolve the
// reference, so the Pipeline is checked on its own creation.
func TestE2ETektonPipelineStart(t *testing.T) {
	c := e2eCluster(t)
	dirs, err := filepath.Glob(filepath.Join(repoRoot, "examples", "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	for _, dir := range dirs {
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			args := append([]string{"mlcube-compile", "--backend", "tekton", "--kind", "pipeline"}, exampleArgs(dir)...)
			out, stderr, code := compileArgs(t, args...)
			if code != 0 {
				if why := manifestcheck.Accepts(t, "tekton", manifestcheck.Specs(dir), "pipeline"); why != nil {
					t.Skipf("not for Tekton: %v", why)
				}
			}
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			ns := "e2e-tkn-" + name
			c.namespace(t, ns)
			docs := strings.Split(out, "\n---\n")
			for i, doc := range docs {
				docs[i] = inNamespace(t, doc, ns)
			}
			for _, doc := range docs[:len(docs)-1] {
				c.ensure(t, doc)
			}
			// The whole stream is checked, so that the Pipeline's
			// configMapKeyRefs find the ConfigMap before it.
			all, pipeline := strings.Join(docs, "\n---\n"), docs[len(docs)-1]
			pl := manifestcheck.ValidateTektonPipeline(t, name, all)
			c.must(t, "", "-n", ns, "delete", "pipeline", pl.Name, "--ignore-not-found")
			c.must(t, pipeline, "create", "-f", "-")
			_, pr := manifestcheck.TknStart(t, name, all, stderr)
			manifest, err := yaml.Marshal(pr)
			if err != nil {
				t.Fatal(err)
			}
			c.dryRun(t, string(manifest))
			t.Logf("Pipeline %s/%s created; tkn pipeline start %s's run accepted by dry run: %d workspaces, "+
				"%d params, %d taskRunSpecs",
				ns, pl.Name, pl.Name, len(pr.Spec.Workspaces), len(pr.Spec.Params), len(pr.Spec.TaskRunSpecs))
		})
	}
}
