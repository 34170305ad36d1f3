package lower

import (
	"time"
	_ "time/tzdata" // timezones are checked the same on every machine

	"github.com/robfig/cron/v3"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/spec"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// lowerSchedule copies the schedule, checking each cron expression with
// the parser Argo's controller uses, the timezone against the timezone
// database, and the concurrency policy.
func lowerSchedule(sc *spec.Schedule) (*ir.Schedule, diag.Diagnostics) {
	if sc == nil {
		return nil, nil
	}
	var diags diag.Diagnostics
	for _, cr := range sc.Cron {
		if _, err := cron.ParseStandard(cr.Value); err != nil {
			diags = append(diags, diag.Errorf(diag.BadSchedule, cr.Loc, "%q is not a cron schedule: %v", cr.Value, err).
				WithFix("write minute hour day-of-month month day-of-week, such as \"0 2 * * *\", or @daily"))
		}
	}
	if tz := sc.Timezone; tz.Value != "" {
		if _, err := time.LoadLocation(tz.Value); err != nil || tz.Value == "Local" {
			diags = append(diags, diag.Errorf(diag.BadSchedule, tz.Loc,
				"%q is not a timezone of the IANA database, such as UTC or Europe/Berlin", tz.Value))
		}
	}
	switch sc.ConcurrencyPolicy {
	case "", "Allow", "Forbid", "Replace":
	default:
		diags = append(diags, diag.Errorf(diag.BadSchedule, diag.Flag("--concurrency-policy").Field("concurrencyPolicy"),
			"%q is not Allow, Forbid or Replace", sc.ConcurrencyPolicy))
	}
	out := &ir.Schedule{ConcurrencyPolicy: sc.ConcurrencyPolicy, StartingDeadlineSeconds: sc.StartingDeadlineSeconds,
		Suspend: sc.Suspend}
	for _, c := range sc.Cron {
		out.Cron = append(out.Cron, c.Value)
	}
	out.Timezone = sc.Timezone.Value
	return out, diags
}
