package lower

import (
	"strings"
	"testing"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/spec"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// A queue or priority class is a label value, at most 63 characters; the
// platform's multiKueue, and its workloadPriorityClass without a queue,
// need a queued step, but only when there are steps.
func TestKueue(t *testing.T) {
	plat := func() *spec.Platform {
		return &spec.Platform{Loc: diag.At(diag.Pos{File: "platform.yaml", Line: 1, Col: 1})}
	}
	p := plat()
	p.Queue = strings.Repeat("q", 64)
	p.WorkloadPriorityClass = strings.Repeat("w", 63)
	if got := fields(kueue(p, true, true)); got != "queue" {
		t.Errorf("long names refused at %q, want queue", got)
	}
	p = plat()
	p.MultiKueue = true
	p.WorkloadPriorityClass = "high"
	for _, c := range []struct {
		queued, steps bool
		want          string
	}{
		{false, true, "multiKueue workloadPriorityClass"}, {true, true, ""}, {false, false, ""},
	} {
		if got := fields(kueue(p, c.queued, c.steps)); got != c.want {
			t.Errorf("queued %v, steps %v: refused at %q, want %q", c.queued, c.steps, got, c.want)
		}
	}
	p.Queue = "team"
	if got := fields(kueue(p, false, true)); got != "multiKueue" {
		t.Errorf("with the platform's queue: refused at %q, want multiKueue alone", got)
	}
}
