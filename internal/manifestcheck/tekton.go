package manifestcheck

import (
	"context"
	"strings"
	"testing"

	tektonv1 "github.com/tektoncd/pipeline/pkg/apis/pipeline/v1"
	"knative.dev/pkg/apis"
	"sigs.k8s.io/yaml"

	"github.com/mlcube-compile/mlcube-compile/backends/tekton/tkntest"
	"github.com/mlcube-compile/mlcube-compile/internal/enginetest"
)

// ValidateTektonPipeline parses the run document as a tekton.dev/v1
// Pipeline, strictly, and runs Tekton's defaulting and validation on a
// copy, as its webhook does when the Pipeline is created.
func ValidateTektonPipeline(t testing.TB, name, manifest string) *tektonv1.Pipeline {
	t.Helper()
	var pl tektonv1.Pipeline
	if err := yaml.UnmarshalStrict([]byte(RunDocument(t, name, manifest)), &pl); err != nil {
		t.Fatalf("%s: not a Pipeline: %v", name, err)
	}
	if pl.APIVersion != "tekton.dev/v1" || pl.Kind != "Pipeline" || pl.Name == "" {
		t.Fatalf("%s: %s %s %q, want a named tekton.dev/v1 Pipeline", name, pl.APIVersion, pl.Kind, pl.Name)
	}
	created := pl.DeepCopy()
	ctx := apis.WithinCreate(context.Background())
	created.SetDefaults(ctx)
	if ferr := created.Validate(ctx); ferr != nil {
		t.Fatalf("%s: Tekton's validation rejects the Pipeline: %v", name, ferr)
	}
	return &pl
}

// TknStart is the PipelineRun that `tkn pipeline start NAME -n NAMESPACE
// --use-param-defaults` makes of the Pipeline in manifest, with the flags
// that the warnings on stderr give (and their taskRunSpecs added).
func TknStart(t testing.TB, name, manifest, stderr string) (*tektonv1.Pipeline, *tektonv1.PipelineRun) {
	t.Helper()
	pl := ValidateTektonPipeline(t, name, manifest)
	start, err := tkntest.FromWarnings(strings.Split(stderr, "\n"))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	pr, err := start.PipelineRun(pl, "-n", pl.Namespace, "--use-param-defaults")
	if err != nil {
		t.Fatalf("%s: tkn pipeline start %s %s: %v\nstderr:\n%s", name, pl.Name, strings.Join(start.Args, " "), err, stderr)
	}
	return pl, pr
}

// EmbeddedJobs are the jobs the printed manifest of backend (argo,
// tekton or tekton-pipeline) creates, the run validated first.
func EmbeddedJobs(t testing.TB, backend, manifest string) []map[string]any {
	t.Helper()
	switch backend {
	case "argo":
		return enginetest.TemplateJobs(t, ValidateArgo(t, "output", manifest).Templates)
	case "tekton":
		return enginetest.TaskJobs(t, ValidatePipelineRun(t, "output", manifest).Spec.PipelineSpec.Tasks)
	case "tekton-pipeline":
		return enginetest.TaskJobs(t, ValidateTektonPipeline(t, "output", manifest).Spec.Tasks)
	}
	return nil
}

// ValidateEmbeddedJobs runs mpi-operator's validation on every MPIJob the
// printed manifest creates, and checks every TrainJob, JobSet and Dask
// object against its operator's CRD schema (a JobSet's CEL rules too).
func ValidateEmbeddedJobs(t testing.TB, backend, manifest string) {
	t.Helper()
	for _, m := range EmbeddedJobs(t, backend, manifest) {
		switch m["kind"] {
		case "MPIJob":
			enginetest.MPIJob(t, m)
		case "TrainJob":
			enginetest.TrainJob(t, m)
		case "JobSet":
			enginetest.JobSet(t, m)
		case "DaskJob", "DaskAutoscaler":
			enginetest.CheckCRD(t, m)
		}
	}
}
