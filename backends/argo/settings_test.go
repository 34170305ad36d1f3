package argo

import (
	"encoding/json"
	"testing"

	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
)

// Argo's settings travel beside the pipeline as the platform's object
// store wrote them; none is the namespace's default repository, kept.
func TestSettingsOf(t *testing.T) {
	if s := settingsOf(&ir.Pipeline{}); s.ArtifactRepositoryRef != nil || s.ArtifactGC != "" {
		t.Errorf("no settings: %+v", s)
	}
	p := &ir.Pipeline{Engines: map[string]json.RawMessage{"argo": json.RawMessage(
		`{"artifactRepositoryRef":{"configMap":"repos","key":"default"},"artifactGC":"OnWorkflowDeletion"}`)}}
	s := settingsOf(p)
	if r := s.ArtifactRepositoryRef; r == nil || r.ConfigMap != "repos" || r.Key != "default" ||
		s.ArtifactGC != "OnWorkflowDeletion" {
		t.Errorf("settings %+v", s)
	}
}
