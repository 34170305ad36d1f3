package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/mlcube-compile/mlcube-compile/backends/argo"
	"github.com/mlcube-compile/mlcube-compile/compiler"
)

// specFlags name the files a compilation reads, and the values that fill
// its params; the main command and graph take them alike.
func specFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "mlcube", Aliases: []string{"m"}, Value: ".", Usage: "cube folder or its mlcube.yaml"},
		&cli.StringFlag{Name: "platform", Aliases: []string{"p"}, Usage: "platform file (or a legacy platforms/docker.yaml)"},
		&cli.StringFlag{Name: "task", Aliases: []string{"t"}, Usage: "pipeline file, legacy invoke file, or one task name; default: every task of the cube"},
		&cli.StringSliceFlag{Name: "values", Aliases: []string{"f"}, Usage: "values `FILE` of param: value lines; repeatable, later files win"},
		&cli.StringSliceFlag{Name: "set", Usage: "give param `NAME=VALUE` a value; repeatable, wins over -f"},
	}
}

// runFlags shape the emitted objects.
func runFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "backend", Aliases: []string{"b"}, Value: "argo", Usage: "what to emit: " + backendList()},
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write to `FILE` atomically instead of stdout"},
		&cli.BoolFlag{Name: "emit-rbac", Usage: "also emit the ServiceAccount, Role and RoleBinding the run needs (argo, tekton)"},
		&cli.StringFlag{Name: "kind", Usage: "with --backend argo, what to emit: " + kindList() + " (default workflow)"},
		&cli.StringSliceFlag{Name: "schedule", Usage: "with --kind cronworkflow, a cron `SCHEDULE` such as '0 2 * * *'; repeatable; replaces the pipeline's schedule.cron"},
		&cli.StringFlag{Name: "timezone", Usage: "with --kind cronworkflow, the schedule's IANA timezone, such as Europe/Berlin"},
		&cli.StringFlag{Name: "concurrency-policy", Usage: "with --kind cronworkflow, what to do when a run is due while one runs: Allow, Forbid or Replace"},
	}
}

// compilerOptions reads the spec flags.
func compilerOptions(c *cli.Context) (compiler.Options, error) {
	opts := compiler.Options{
		MLCube: c.String("mlcube"), Platform: c.String("platform"), Task: c.String("task"),
		Values: c.StringSlice("values"),
	}
	for _, s := range c.StringSlice("set") {
		name, value, ok := strings.Cut(s, "=")
		if !ok || strings.TrimSpace(name) == "" {
			return opts, usageError{fmt.Errorf("--set %q: want NAME=VALUE", s)}
		}
		opts.Set = append(opts.Set, compiler.Setting{Name: strings.TrimSpace(name), Value: value})
	}
	return opts, nil
}

// kindOptions reads --kind and the schedule flags, which only an Argo
// CronWorkflow takes, and says why params need values now, if they do.
func kindOptions(c *cli.Context, opts *compiler.Options) (argo.Kind, error) {
	backend, kind := c.String("backend"), argo.Kind(c.String("kind"))
	if kind != "" && backend != "argo" {
		return "", usageError{fmt.Errorf("--kind is for --backend argo; %s emits one kind", backend)}
	}
	known := kind == ""
	for _, k := range argo.Kinds {
		known = known || k == kind
	}
	if !known {
		return "", usageError{fmt.Errorf("unknown --kind %q (kinds: %s)", kind, kindList())}
	}
	opts.Schedule = compiler.ScheduleOptions{Cron: c.StringSlice("schedule"), Timezone: c.String("timezone"), ConcurrencyPolicy: c.String("concurrency-policy")}
	if kind != argo.KindCronWorkflow && (len(opts.Schedule.Cron) > 0 || opts.Schedule.Timezone != "" || opts.Schedule.ConcurrencyPolicy != "") {
		return "", usageError{fmt.Errorf("--schedule, --timezone and --concurrency-policy go with --kind cronworkflow")}
	}
	switch {
	case backend == "job":
		opts.NeedValues = "a Job has no run-time parameters"
	case kind == argo.KindCronWorkflow:
		opts.NeedValues = "a CronWorkflow starts its runs itself, with no one to pass -p"
	}
	return kind, nil
}

func kindList() string {
	var out []string
	for _, k := range argo.Kinds {
		out = append(out, string(k))
	}
	return strings.Join(out, ", ")
}
