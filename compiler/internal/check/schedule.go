package check

import (
	"time"
	_ "time/tzdata" // timezones are checked the same on every machine

	"github.com/robfig/cron/v3"

	"github.com/mlcube-compile/mlcube-compile/diag"
)

// schedule checks each cron expression with the parser Argo's
// controller uses, the timezone against the timezone database, and the
// concurrency policy.
func (c *checker) schedule() {
	sc := c.spec.Schedule
	if sc == nil {
		return
	}
	for _, cr := range sc.Cron {
		if _, err := cron.ParseStandard(cr.Value); err != nil {
			c.errorf(cr.Loc, "%q is not a cron schedule (minute hour day-of-month month day-of-week, such as \"0 2 * * *\", or @daily): %v", cr.Value, err)
		}
	}
	if tz := sc.Timezone; tz.Value != "" {
		if _, err := time.LoadLocation(tz.Value); err != nil || tz.Value == "Local" {
			c.errorf(tz.Loc, "%q is not a timezone of the IANA database, such as UTC or Europe/Berlin", tz.Value)
		}
	}
	switch sc.ConcurrencyPolicy {
	case "", "Allow", "Forbid", "Replace":
	default:
		c.errorf(diag.At(diag.Pos{File: "--concurrency-policy"}).Field("concurrencyPolicy"), "%q is not Allow, Forbid or Replace", sc.ConcurrencyPolicy)
	}
}
