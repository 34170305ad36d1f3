package tekton

import (
	"encoding/json"

	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
)

// settings are what the platform's tekton: section says of the cluster's
// Tekton, the engine's own settings beside the pipeline
// (ir.Pipeline.Engines): its feature flags, whether its image volumes
// mount an image's /workspace, and the images' ENTRYPOINTs. The schema
// has checked them; the zero value is a cluster set as Tekton's defaults.
type settings struct {
	// Coschedule is the coschedule feature flag: workspaces (Tekton's
	// default, also when empty), pipelineruns, isolate-pipelinerun or
	// disabled.
	Coschedule string `json:"coschedule"`
	// SetSecurityContext is the set-security-context feature flag.
	SetSecurityContext bool `json:"setSecurityContext"`
	// ImageWorkspace is named (the default, also when empty), always or
	// none.
	ImageWorkspace string `json:"imageWorkspace"`
	// ImageEntrypoints are the ENTRYPOINT of each image named, empty for
	// none.
	ImageEntrypoints map[string][]string `json:"imageEntrypoints"`
}

// settingsOf are p's settings for Tekton: its platform's tekton: section,
// with Tekton's defaults for what it leaves out.
func settingsOf(p *ir.Pipeline) settings {
	var s settings
	if raw := p.Engines[Engine{}.Name()]; len(raw) > 0 {
		// The schema checked the section, and the compiler wrote it as
		// JSON: a failure here is a bug, which the validator's refusal
		// of the result would show.
		_ = json.Unmarshal(raw, &s)
	}
	if s.Coschedule == "" {
		s.Coschedule = coscheduleWorkspaces
	}
	return s
}
