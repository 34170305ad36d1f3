package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/compiler"
	"github.com/mlcube-compile/mlcube-compile/diag"
	"github.com/mlcube-compile/mlcube-compile/driver"
)

// specFlags name the files a compilation reads, and the values that fill
// its params; the main command and graph take them alike.
func specFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "mlcube", Aliases: []string{"m"},
			Usage: "cube folder or its mlcube.yaml (or MedPerf's container_config.yaml); default: the pipeline file's folder, " +
				"else the current folder"},
		&cli.StringFlag{Name: "platform", Aliases: []string{"p"},
			Usage: "platform file (or a legacy platforms/docker.yaml); default: platform.yaml beside the pipeline file, else " +
				"beside the cube; - reads it from standard input"},
		&cli.StringFlag{Name: "task", Aliases: []string{"t"},
			Usage: "pipeline file, legacy invoke file, or task names a,b,c run in that order (as mlcube run --task a,b,c); " +
				"default: the current folder's pipeline.yaml when no --mlcube or path is given, else every task of the cube, in " +
				"the file's order wherever their paths touch; - reads a pipeline file from standard input (then no platform file " +
				"is read without -p)"},
		valuesFlag("values `FILE` of param: value lines; repeatable, later files win"),
		setFlag("give param `NAME=VALUE` a value; repeatable, wins over -f"),
		disableFlag(),
	}
}

// valuesFlag is -f (--values), the values files that fill params at
// compile time; compile, graph and lint take it.
func valuesFlag(usage string) cli.Flag {
	return &cli.StringSliceFlag{Name: "values", Aliases: []string{"f"}, Usage: usage}
}

// setFlag is --set NAME=VALUE, which wins over -f.
func setFlag(usage string) cli.Flag {
	return &cli.StringSliceFlag{Name: "set", Usage: usage}
}

// settings reads --set: each NAME=VALUE, each NAME once (the last
// would win without a word; a --set over a values file's value is
// precedence, and stays).
func settings(c *cli.Context) ([]compiler.Setting, error) {
	var out []compiler.Setting
	seen := map[string]string{}
	for _, s := range c.StringSlice("set") {
		name, value, ok := strings.Cut(s, "=")
		if !ok || strings.TrimSpace(name) == "" {
			return nil, usageError{fmt.Errorf("--set %q: want NAME=VALUE", s)}
		}
		name = strings.TrimSpace(name)
		if err := nameOnce(seen, name, s, "--set "+name, "a param takes one value"); err != nil {
			return nil, err
		}
		out = append(out, compiler.Setting{Name: name, Value: value})
	}
	return out, nil
}

// nameOnce refuses a NAME=VALUE whose name seen has already, naming it
// as what (--set epochs) with both as written; else it keeps written as
// name's. takes says why one is all it takes.
func nameOnce(seen map[string]string, name, written, what, takes string) error {
	if first, ok := seen[name]; ok {
		return usageError{fmt.Errorf("%s is given twice, %s and %s, and %s: give it once", what, first, written, takes)}
	}
	seen[name] = written
	return nil
}

// disableFlag silences warnings by code, as a disable comment in a spec
// does.
func disableFlag() cli.Flag {
	return &cli.StringSliceFlag{Name: "disable",
		Usage: "do not report warnings of `CODE` (MLC301, …: docs/troubleshooting.md lists them); repeatable or " +
			"comma-separated; a spec's comment # mlcube-compile: disable CODE silences one line's"}
}

// disabledCodes reads --disable: each a warning's code.
func disabledCodes(c *cli.Context) ([]diag.Code, error) {
	var out []diag.Code
	for _, arg := range c.StringSlice("disable") {
		for _, s := range strings.Split(arg, ",") {
			s = strings.TrimSpace(s)
			if diag.IsError(diag.Code(s)) {
				return nil, usageError{fmt.Errorf("--disable %q: this is an error's code, and errors cannot be silenced; "+
					"--disable takes warnings' codes", s)}
			}
			if !diag.Known(diag.Code(s)) {
				return nil, usageError{fmt.Errorf("--disable %q: no warning has this code (docs/troubleshooting.md lists them)%s",
					s, diag.Suggest(s, diag.CodeNames()))}
			}
			out = append(out, diag.Code(s))
		}
	}
	return out, nil
}

// runFlags shape the emitted objects.
func runFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "backend", Aliases: []string{"b"}, Value: "argo",
			Usage: "what to emit: " + strings.Join(driver.Backends(), ", ") +
				", or all (one file each, with -o DIR/)"},
		&cli.StringFlag{Name: "output", Aliases: []string{"o"},
			Usage: "write to `FILE` atomically instead of stdout; into a folder (one there, or DIR/ created), as " +
				"BACKEND.yaml; -o yaml and -o json print that format, as kubectl's -o does"},
		&cli.StringFlag{Name: "format", Value: driver.OutputFormats[0],
			Usage: "how the objects are written: yaml (a stream of documents) or json (one object, or a v1 List of several, " +
				"as kubectl get -o json prints them)"},
		verboseFlag(),
		errorFormatFlag(),
		&cli.StringFlag{Name: "namespace", Aliases: []string{"n"},
			Usage: "the `NAMESPACE` to run in, in place of the platform's"},
		&cli.BoolFlag{Name: "emit-rbac",
			Usage: "also emit the ServiceAccount, Role and RoleBinding the run needs (argo, tekton)"},
		&cli.StringFlag{Name: "kind", Usage: "what the backend emits, its first kind by default: " + driver.Kinds()},
		stepFlag(),
		&cli.StringSliceFlag{Name: "schedule",
			Usage: "with --kind cronworkflow, a cron `SCHEDULE` such as '0 2 * * *'; repeatable; replaces the " +
				"pipeline's schedule.cron"},
		&cli.StringFlag{Name: "timezone",
			Usage: "with --kind cronworkflow, the schedule's IANA timezone, such as Europe/Berlin"},
		&cli.StringFlag{Name: "concurrency-policy",
			Usage: "with --kind cronworkflow, what to do when a run is due while one runs: Allow, Forbid or Replace"},
	}
}

// workspace reads the spec flags and the arguments into the workspace of
// the files they name, with those they leave out filled in (Pair), noting
// in the session which platform file that chose when -v asks for notes.
func workspace(c *cli.Context, s *session) (*compiler.Workspace, error) {
	opts := compiler.Options{
		MLCube: c.String("mlcube"), Platform: c.String("platform"), Task: c.String("task"),
		Values: c.StringSlice("values"),
	}
	opts.Version, opts.Commit = compilerIdentity()
	if err := checkPlatformValue(opts.Platform); err != nil {
		return nil, err
	}
	set, err := settings(c)
	if err != nil {
		return nil, err
	}
	opts.Set = set
	paths := map[string]string{}
	for _, a := range c.Args().Slice() {
		if err := readArg(c, &opts, a, paths); err != nil {
			return nil, err
		}
	}
	disabled, err := disabledCodes(c)
	if err != nil {
		return nil, err
	}
	opts.Disable = disabled
	if err := readStdin(&opts, c.App.Reader); err != nil {
		return nil, err
	}
	w := compiler.Load(opts)
	if n := pairingNote(w.Pair()); n.Code != "" && c.Bool("verbose") && !slices.Contains(disabled, n.Code) {
		s.notes = append(s.notes, n)
	}
	return w, nil
}

// readArg reads an argument: a spec file or folder, which fills the flag
// that names it (compiler.PathAlone), or a cube parameter's NAME=PATH,
// as mlcube run takes it, each name once: seen holds the names given.
func readArg(c *cli.Context, opts *compiler.Options, a string, seen map[string]string) error {
	if kind, path := compiler.PathAlone(a); kind != compiler.NotASpec {
		return placeArg(opts, a, kind, path)
	}
	name, value, ok := strings.Cut(a, "=")
	if !ok || strings.TrimSpace(name) == "" || strings.HasPrefix(name, "-") {
		if use, ok := habitOf(commandName, a); ok {
			return usageError{fmt.Errorf("%q is no command here: %s", a, use)}
		}
		if cmd := nearestCommand(c, a); cmd != "" {
			return usageError{fmt.Errorf("unexpected argument %q; did you mean the command %s?", a, cmd)}
		}
		return usageError{fmt.Errorf("unexpected argument %q; a cube parameter's path is given as NAME=PATH, as mlcube run "+
			"takes it, and a spec file or folder by its path, and none is there of that name", a)}
	}
	name = strings.TrimSpace(name)
	if err := nameOnce(seen, name, a, name, "a cube parameter takes one path"); err != nil {
		return err
	}
	opts.Paths = append(opts.Paths, compiler.Setting{Name: name, Value: value})
	return nil
}

// placeArg gives a spec path given alone to the flag that names its kind:
// --mlcube, --task or --platform, unless that flag names another.
func placeArg(opts *compiler.Options, arg string, kind compiler.FileKind, path string) error {
	var flag string
	var to *string
	switch kind {
	case compiler.CubeFile:
		flag, to = "--mlcube", &opts.MLCube
	case compiler.TaskFile:
		flag, to = "--task", &opts.Task
	case compiler.PlatformFile:
		flag, to = "--platform", &opts.Platform
	default:
		return usageError{fmt.Errorf("unexpected argument %q: not a cube, pipeline or platform file (a values file "+
			"is given with -f)", arg)}
	}
	if *to != "" && *to != path {
		return usageError{fmt.Errorf("%s would be %s %s, and %s names %s already; give one", arg, flag, path, flag, *to)}
	}
	*to = path
	return nil
}

// pairingNote is the note on the platform file Pair chose, or on the one
// it could not look for; none when it did neither.
func pairingNote(paired compiler.Pairing) note {
	switch {
	case paired.Platform != "":
		return note{File: paired.Platform, Flag: "--platform",
			Message: "read because it is " + paired.Beside + "; -p FILE reads another", Code: diag.PlatformRead}
	case paired.Unplaced:
		return note{File: compiler.StdinName, Flag: "--platform",
			Message: "no platform file read: a pipeline on standard input has no folder to find platform.yaml beside; " +
				"-p FILE reads one", Code: diag.NoPlatformRead}
	}
	return note{}
}

// request reads every flag of a compilation.
func request(c *cli.Context, s *session) (driver.Request, error) {
	w, err := workspace(c, s)
	if err != nil {
		return driver.Request{}, err
	}
	opts := w.Options()
	if opts.Steps, err = pickedSteps(c, w); err != nil {
		return driver.Request{}, err
	}
	opts.Namespace = c.String("namespace")
	opts.Schedule = compiler.ScheduleOptions{Cron: c.StringSlice("schedule"), Timezone: c.String("timezone"),
		ConcurrencyPolicy: c.String("concurrency-policy")}
	return driver.Request{
		Compiler:  opts,
		Workspace: w,
		Backend:   c.String("backend"),
		Emit:      emit.Options{RBAC: c.Bool("emit-rbac"), Kind: c.String("kind")},
	}, nil
}

// verboseFlag asks for notes: which platform file was read, and why.
func verboseFlag() cli.Flag {
	return &cli.BoolFlag{Name: "verbose", Aliases: []string{"v"},
		Usage: "also print notes on stderr (which platform file was read because of where it is), and each problem's " +
			"detail: why, and the cluster's or versions' facts behind it"}
}

// errorFormatFlag is how errors and warnings are printed on stderr.
func errorFormatFlag() cli.Flag {
	return &cli.StringFlag{Name: "error-format", Value: diagnosticFormats[0],
		Usage: "how errors and warnings are printed: text, json (usage errors too), or github (GitHub Actions annotations)"}
}

// nearestCommand is the command whose name arg is near (help and
// version included), else "".
func nearestCommand(c *cli.Context, arg string) string {
	return diag.Nearest(arg, append([]string{"help", "version"}, commandNames(c.App)...))
}
