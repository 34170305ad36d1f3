package tekton

import (
	"encoding/json"
	"testing"

	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
)

// setTekton changes p's Tekton settings as the platform's tekton: section
// would say them.
func setTekton(t *testing.T, p *ir.Pipeline, change func(*settings)) {
	t.Helper()
	s := settingsOf(p)
	change(&s)
	raw, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if p.Engines == nil {
		p.Engines = map[string]json.RawMessage{}
	}
	p.Engines[Engine{}.Name()] = raw
}

// Without a tekton: section the settings are Tekton's defaults; with one,
// what it says, coschedule defaulted when it leaves it out.
func TestSettingsOf(t *testing.T) {
	s := settingsOf(&ir.Pipeline{})
	if s.Coschedule != coscheduleWorkspaces || s.SetSecurityContext || s.ImageWorkspace != "" {
		t.Errorf("no section: %+v", s)
	}
	p := &ir.Pipeline{Engines: map[string]json.RawMessage{
		"tekton": json.RawMessage(`{"setSecurityContext": true, "imageEntrypoints": {"a:1": []}}`),
		"argo":   json.RawMessage(`{"coschedule": "disabled"}`),
	}}
	s = settingsOf(p)
	if s.Coschedule != coscheduleWorkspaces || !s.SetSecurityContext || s.ImageEntrypoints["a:1"] == nil {
		t.Errorf("a section: %+v", s)
	}
}
