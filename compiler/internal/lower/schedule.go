package lower

import (
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
)

// lowerSchedule copies the schedule, which package check has checked.
func (lw *lowering) lowerSchedule() {
	sc := lw.spec.Schedule
	if sc == nil {
		return
	}
	out := &ir.Schedule{ConcurrencyPolicy: sc.ConcurrencyPolicy, StartingDeadlineSeconds: sc.StartingDeadlineSeconds, Suspend: sc.Suspend}
	for _, c := range sc.Cron {
		out.Cron = append(out.Cron, c.Value)
	}
	out.Timezone = sc.Timezone.Value
	lw.p.Schedule = out
}

// scheduledConcurrency keeps scheduled runs that share a fixed claim from
// overlapping: with Argo's default, Allow, a run that outlasts its
// interval writes the same paths as the next one at the same time. Such a
// schedule defaults to Forbid; a written policy stands.
func (lw *lowering) scheduledConcurrency() {
	sc := lw.p.Schedule
	if sc == nil || sc.ConcurrencyPolicy != "" {
		return
	}
	for _, v := range lw.p.Volumes {
		if v.Create == nil {
			sc.ConcurrencyPolicy = "Forbid"
			return
		}
	}
}
