package tekton_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	tektonv1 "github.com/tektoncd/pipeline/pkg/apis/pipeline/v1"

	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/backends/tekton/tkntest"
	"github.com/mlcube-compile/mlcube-compile/internal/enginetest"
	"github.com/mlcube-compile/mlcube-compile/internal/manifestcheck"
)

// Kind pipelinerun is Tekton's default, written or not. Kind pipeline is
// a Pipeline named after the pipeline, in its namespace, after the
// ConfigMap and the RBAC it needs, with the same tasks; the account the
// RBAC makes is given at start.
func TestTektonKinds(t *testing.T) {
	files := manifestcheck.Specs(enginetest.Example(t, "single-gpu-task"))
	def := build(t, files, emit.Options{}).Must(t)
	if explicit := build(t, files, emit.Options{Kind: "pipelinerun"}).Must(t); explicit.YAML(t) != def.YAML(t) {
		t.Errorf("kind pipelinerun: not the output of the default kind:\n%s", cmp.Diff(def.YAML(t), explicit.YAML(t)))
	}
	out := build(t, files, emit.Options{Kind: "pipeline", RBAC: true}).Must(t)
	var kinds []string
	var account string
	for _, obj := range out.Objects() {
		tree := enginetest.Tree(t, obj)
		kinds = append(kinds, tree["kind"].(string))
		if tree["kind"] == "ServiceAccount" {
			account = tree["metadata"].(map[string]any)["name"].(string)
		}
	}
	if diff := cmp.Diff([]string{"ConfigMap", "ServiceAccount", "Role", "RoleBinding", "Pipeline"}, kinds); diff != "" {
		t.Errorf("documents (-want +got):\n%s", diff)
	}
	pl := out.Run.(*tektonv1.Pipeline)
	// What tkn pipeline start NAME -n NAMESPACE --use-param-defaults makes
	// of the Pipeline with the flags the warnings give.
	start, err := tkntest.FromWarnings(strings.Split(out.Stderr(), "\n"))
	if err != nil {
		t.Fatal(err)
	}
	pr, err := start.PipelineRun(pl, "-n", pl.Namespace, "--use-param-defaults")
	if err != nil {
		t.Fatalf("tkn pipeline start %s %s: %v\nwarnings:\n%s", pl.Name, strings.Join(start.Args, " "), err, out.Stderr())
	}
	run := def.Run.(*tektonv1.PipelineRun)
	if pl.Name != "mnist-softmax-gpu" || pl.Namespace != "ml-team" ||
		len(pl.Spec.Tasks) != len(run.Spec.PipelineSpec.Tasks) {
		t.Errorf("Pipeline %s/%s with %d tasks, want ml-team/mnist-softmax-gpu with the PipelineRun's %d", pl.Namespace,
			pl.Name, len(pl.Spec.Tasks), len(run.Spec.PipelineSpec.Tasks))
	}
	if account == "" || pr.Spec.TaskRunTemplate.ServiceAccountName != account {
		t.Errorf("the run runs as %q, want the emitted account %q", pr.Spec.TaskRunTemplate.ServiceAccountName, account)
	}
}
