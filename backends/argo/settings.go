package argo

import (
	"encoding/json"

	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
)

// settings are what the platform says of the cluster's Argo alone, the
// engine's own settings beside the pipeline (ir.Pipeline.Engines): the
// artifact repository that holds the run's bucket, when the platform
// names one by its ConfigMap's key, and when Argo deletes the run's
// artifacts. The zero value is the namespace's default repository, whose
// artifacts are kept.
type settings struct {
	ArtifactRepositoryRef *struct {
		ConfigMap string `json:"configMap"`
		Key       string `json:"key"`
	} `json:"artifactRepositoryRef"`
	// ArtifactGC is OnWorkflowDeletion or OnWorkflowCompletion; empty
	// keeps the artifacts.
	ArtifactGC string `json:"artifactGC"`
}

// settingsOf are p's settings for Argo.
func settingsOf(p *ir.Pipeline) settings {
	var s settings
	if raw := p.Engines[Engine{}.Name()]; len(raw) > 0 {
		// The compiler wrote them as JSON from checked specs: a failure
		// here is a bug, which the validator's refusal of the result
		// would show.
		_ = json.Unmarshal(raw, &s)
	}
	return s
}
