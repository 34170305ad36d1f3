package main

import (
	"testing"

	"github.com/mlcube-compile/mlcube-compile/internal/manifestcheck"
	tektonv1 "github.com/tektoncd/pipeline/pkg/apis/pipeline/v1"
)

// validators parse a manifest back, strictly, and run the backend's
// upstream validator on it, as the cluster would when it is created.
var validators = map[string]func(t *testing.T, name, manifest string){
	"argo": func(t *testing.T, name, manifest string) {
		manifestcheck.ValidateArgo(t, name, manifest)
		manifestcheck.ValidateEmbeddedJobs(t, "argo", manifest)
	},
	"tekton": func(t *testing.T, name, manifest string) {
		manifestcheck.ValidatePipelineRun(t, name, manifest)
		manifestcheck.ValidateEmbeddedJobs(t, "tekton", manifest)
	},
	"tekton-pipeline": func(t *testing.T, name, manifest string) {
		manifestcheck.ValidateTektonPipeline(t, name, manifest)
		manifestcheck.ValidateEmbeddedJobs(t, "tekton-pipeline", manifest)
	},
	"job": func(t *testing.T, name, manifest string) {
		manifestcheck.ValidateJob(t, name, manifest)
	},
}

// validateTknStart runs Tekton's defaulting and validation on the run
// that tkn pipeline start makes of the Pipeline in manifest, with the
// flags the warnings on stderr give.
func validateTknStart(t *testing.T, name, manifest, stderr string) *tektonv1.PipelineRun {
	t.Helper()
	_, pr := manifestcheck.TknStart(t, name, manifest, stderr)
	manifestcheck.CreatePipelineRun(t, name+": the run tkn pipeline start makes", pr)
	return pr
}
