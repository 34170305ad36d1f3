package spec

import (
	_ "time/tzdata" // timezones are checked the same on every machine

	"cuelang.org/go/cue"

	"github.com/mlcube-compile/mlcube-compile/diag"
)

// ScheduleOptions are the --schedule, --timezone and --concurrency-policy
// flags; each one set replaces the pipeline file's.
type ScheduleOptions struct {
	Cron              []string
	Timezone          string
	ConcurrencyPolicy string
}

// Schedule is the pipeline file's schedule: key, with the flags laid
// over it.
type Schedule struct {
	Cron                    []ScheduleField
	Timezone                ScheduleField
	ConcurrencyPolicy       string
	StartingDeadlineSeconds *int64
	Suspend                 bool
}

// ScheduleField is one value of a schedule and where it was given.
type ScheduleField struct {
	Value string
	Loc   diag.Loc
}

// decodeSchedule reads schedule:, written at loc: a cron expression or a
// mapping.
func decodeSchedule(loc diag.Loc, v cue.Value) *Schedule {
	if !v.Exists() {
		return nil
	}
	sc := &Schedule{}
	if s, err := v.String(); err == nil {
		sc.Cron = []ScheduleField{{Value: s, Loc: loc}}
		return sc
	}
	crons := v.LookupPath(pathOf("cron"))
	if s, err := crons.String(); err == nil {
		sc.Cron = []ScheduleField{{Value: s, Loc: loc.Field("cron")}}
	} else if it, err := crons.List(); err == nil {
		for i := 0; it.Next(); i++ {
			s, _ := it.Value().String()
			sc.Cron = append(sc.Cron, ScheduleField{Value: s, Loc: loc.Field("cron").Index(i)})
		}
	}
	if tz := str(v, "timezone"); tz != "" {
		sc.Timezone = ScheduleField{Value: tz, Loc: loc.Field("timezone")}
	}
	sc.ConcurrencyPolicy = str(v, "concurrencyPolicy")
	if d, err := v.LookupPath(pathOf("startingDeadlineSeconds")).Int64(); err == nil {
		sc.StartingDeadlineSeconds = &d
	}
	sc.Suspend, _ = v.LookupPath(pathOf("suspend")).Bool()
	return sc
}

// OverrideSchedule lays the flags over the file's schedule.
func OverrideSchedule(sc *Schedule, o ScheduleOptions) *Schedule {
	if len(o.Cron) == 0 && o.Timezone == "" && o.ConcurrencyPolicy == "" {
		return sc
	}
	out := &Schedule{}
	if sc != nil {
		*out = *sc
	}
	if len(o.Cron) > 0 {
		out.Cron = nil
		for _, c := range o.Cron {
			out.Cron = append(out.Cron, ScheduleField{Value: c, Loc: diag.Flag("--schedule").Field("schedule")})
		}
	}
	if o.Timezone != "" {
		out.Timezone = ScheduleField{Value: o.Timezone, Loc: diag.Flag("--timezone").Field("timezone")}
	}
	if o.ConcurrencyPolicy != "" {
		out.ConcurrencyPolicy = o.ConcurrencyPolicy
	}
	return out
}
