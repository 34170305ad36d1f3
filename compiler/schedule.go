package compiler

import (
	"time"
	_ "time/tzdata" // timezones are checked the same on every machine

	"cuelang.org/go/cue"
	"github.com/robfig/cron/v3"

	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// ScheduleOptions are the --schedule, --timezone and --concurrency-policy
// flags; each one set replaces the pipeline file's.
type ScheduleOptions struct {
	Cron              []string
	Timezone          string
	ConcurrencyPolicy string
}

// scheduleSpec is the pipeline file's schedule: key, with the flags laid
// over it.
type scheduleSpec struct {
	Cron                    []scheduleField
	Timezone                scheduleField
	ConcurrencyPolicy       string
	StartingDeadlineSeconds *int64
	Suspend                 bool
}

// scheduleField is one value of a schedule and where it was given.
type scheduleField struct {
	Value string
	Loc   diag.Loc
}

// decodeSchedule reads schedule:, written at loc: a cron expression or a
// mapping.
func decodeSchedule(loc diag.Loc, v cue.Value) *scheduleSpec {
	if !v.Exists() {
		return nil
	}
	sc := &scheduleSpec{}
	if s, err := v.String(); err == nil {
		sc.Cron = []scheduleField{{Value: s, Loc: loc}}
		return sc
	}
	crons := v.LookupPath(pathOf("cron"))
	if s, err := crons.String(); err == nil {
		sc.Cron = []scheduleField{{Value: s, Loc: loc.Field("cron")}}
	} else if it, err := crons.List(); err == nil {
		for i := 0; it.Next(); i++ {
			s, _ := it.Value().String()
			sc.Cron = append(sc.Cron, scheduleField{Value: s, Loc: loc.Field("cron").Index(i)})
		}
	}
	if tz := str(v, "timezone"); tz != "" {
		sc.Timezone = scheduleField{Value: tz, Loc: loc.Field("timezone")}
	}
	sc.ConcurrencyPolicy = str(v, "concurrencyPolicy")
	if d, err := v.LookupPath(pathOf("startingDeadlineSeconds")).Int64(); err == nil {
		sc.StartingDeadlineSeconds = &d
	}
	sc.Suspend, _ = v.LookupPath(pathOf("suspend")).Bool()
	return sc
}

// overrideSchedule lays the flags over the file's schedule.
func overrideSchedule(sc *scheduleSpec, o ScheduleOptions) *scheduleSpec {
	if len(o.Cron) == 0 && o.Timezone == "" && o.ConcurrencyPolicy == "" {
		return sc
	}
	out := &scheduleSpec{}
	if sc != nil {
		*out = *sc
	}
	if len(o.Cron) > 0 {
		out.Cron = nil
		for _, c := range o.Cron {
			out.Cron = append(out.Cron, scheduleField{Value: c, Loc: diag.At(diag.Pos{File: "--schedule"}).Field("schedule")})
		}
	}
	if o.Timezone != "" {
		out.Timezone = scheduleField{Value: o.Timezone, Loc: diag.At(diag.Pos{File: "--timezone"}).Field("timezone")}
	}
	if o.ConcurrencyPolicy != "" {
		out.ConcurrencyPolicy = o.ConcurrencyPolicy
	}
	return out
}

// lowerSchedule checks each cron expression with the parser Argo's
// controller uses, and the timezone against the timezone database.
func (lw *lowering) lowerSchedule() {
	sc := lw.spec.Schedule
	if sc == nil {
		return
	}
	out := &ir.Schedule{ConcurrencyPolicy: sc.ConcurrencyPolicy, StartingDeadlineSeconds: sc.StartingDeadlineSeconds, Suspend: sc.Suspend}
	for _, c := range sc.Cron {
		if _, err := cron.ParseStandard(c.Value); err != nil {
			lw.errorf(c.Loc, "%q is not a cron schedule (minute hour day-of-month month day-of-week, such as \"0 2 * * *\", or @daily): %v", c.Value, err)
		}
		out.Cron = append(out.Cron, c.Value)
	}
	if tz := sc.Timezone; tz.Value != "" {
		if _, err := time.LoadLocation(tz.Value); err != nil || tz.Value == "Local" {
			lw.errorf(tz.Loc, "%q is not a timezone of the IANA database, such as UTC or Europe/Berlin", tz.Value)
		}
		out.Timezone = tz.Value
	}
	switch sc.ConcurrencyPolicy {
	case "", "Allow", "Forbid", "Replace":
	default:
		lw.errorf(diag.At(diag.Pos{File: "--concurrency-policy"}).Field("concurrencyPolicy"), "%q is not Allow, Forbid or Replace", sc.ConcurrencyPolicy)
	}
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
