package main

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/mlcube-compile/mlcube-compile/diag"
	"github.com/urfave/cli/v2"
)

// flagSpec is one flag a command takes, by every name it has.
type flagSpec struct {
	// name is the flag's own name; aliases are written as it.
	name string
	// value says whether the flag takes a value.
	value bool
	// repeats says whether it may be given more than once, each value
	// kept (a slice flag: -f, --set, --disable, lint's --backend).
	repeats bool
}

// flagSpecs are a command's flags by each name and alias, with the help
// flag urfave/cli adds (and --version at the top).
func flagSpecs(flags []cli.Flag, top bool) map[string]flagSpec {
	out := map[string]flagSpec{"help": {name: "help"}, "h": {name: "help"}}
	if top {
		out["version"] = flagSpec{name: "version"}
	}
	for _, f := range flags {
		names := f.Names()
		_, isBool := f.(*cli.BoolFlag)
		_, isSlice := f.(*cli.StringSliceFlag)
		for _, n := range names {
			out[n] = flagSpec{name: names[0], value: !isBool, repeats: isSlice}
		}
	}
	return out
}

// normalizeArgs puts a command line in the order urfave/cli v2 parses,
// so that flags work anywhere, as kubectl users expect: each command's
// flags right after it, its arguments last (after "--" when one starts
// with "-"). Every flag is written by its own name, so that -f and
// --values mix. An unknown flag is a usage error naming the nearest one.
func normalizeArgs(app *cli.App, args []string) ([]string, error) {
	if len(args) > 2 && args[1] == "help" && !strings.HasPrefix(args[2], "-") {
		// help COMMAND, as go help build.
		if app.Command(args[2]) == nil {
			return nil, usageError{fmt.Errorf("no command %q to help with (commands: %s)%s", args[2],
				strings.Join(commandNames(app), ", "), diag.Suggest(args[2], commandNames(app)))}
		}
		return []string{args[0], args[2], "--help"}, nil
	}
	specs, scope := flagSpecs(app.Flags, true), ""
	head, flags, rest := []string{args[0]}, []flagArg(nil), []string(nil)
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			rest = append(rest, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(a, "-") && a != "-":
			written, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
			spec, ok := specs[written]
			switch {
			case !ok && a == "-P" && i+1 < len(args):
				return nil, mlcubeOverride(a + args[i+1])
			case !ok && strings.HasPrefix(a, "-P") && len(a) > 2:
				return nil, mlcubeOverride(a)
			case !ok:
				return nil, unknownFlag(a, scope, specs)
			}
			token, took, err := oneToken(spec, value, hasValue, args[i+1:])
			if err != nil {
				return nil, err
			}
			typed, _, _ := strings.Cut(a, "=")
			flags = append(flags, flagArg{token, typed})
			if took {
				i++
			}
		case scope == "" && len(rest) == 0 && (a == "help" || a == "version"):
			// help and version as commands, as go and kubectl take them.
			flags = append(flags, flagArg{"--" + a, a})
		case scope == "" && len(rest) == 0 && app.Command(a) != nil:
			specs = flagSpecs(app.Command(a).Flags, false)
			top, moved, err := beforeCommand(flags, a, specs)
			if err != nil {
				return nil, err
			}
			head = append(append(head, top...), a)
			flags, scope = moved, a
		default:
			rest = append(rest, a)
		}
	}
	return assemble(head, flags, rest, specs)
}

// flagArg is a flag of the command line as one token, --name=value
// (oneToken), and its name as the user typed it (-o, --error-format).
type flagArg struct {
	token, typed string
}

// assemble is the command line normalizeArgs parsed, once each flag that
// takes one value is given once: the command, its flags, its arguments
// (after "--" when one starts with "-").
func assemble(head []string, flags []flagArg, rest []string, specs map[string]flagSpec) ([]string, error) {
	if err := givenOnce(flags, specs); err != nil {
		return nil, err
	}
	out := head
	for _, f := range flags {
		out = append(out, f.token)
	}
	for _, a := range rest {
		if strings.HasPrefix(a, "-") && a != "-" {
			return append(append(out, "--"), rest...), nil
		}
	}
	return append(out, rest...), nil
}

// oneToken is a flag as one token, --name=value, so that it can move:
// its value is the one written with it, or the next argument, which it
// took then. A flag that takes a value and has none, and a switch given
// one that is not true or false, are usage errors naming the flag as it
// is written (Go's flag package would say -name).
func oneToken(spec flagSpec, value string, hasValue bool, next []string) (token string, took bool, err error) {
	switch {
	case hasValue && !spec.value:
		if _, err := strconv.ParseBool(value); err != nil {
			more := ""
			if spec.name == "verbose" {
				// kubectl's and argo's -v=N.
				more = "; -v has no levels: -v alone prints the notes"
			}
			return "", false, usageError{fmt.Errorf("invalid value %q for --%s: a switch takes true or false, or nothing%s",
				value, spec.name, more)}
		}
		return "--" + spec.name + "=" + value, false, nil
	case hasValue:
		return "--" + spec.name + "=" + value, false, nil
	case spec.value && len(next) > 0:
		return "--" + spec.name + "=" + next[0], true, nil
	case spec.value:
		return "", false, usageError{fmt.Errorf("flag needs an argument: --%s", spec.name)}
	}
	return "--" + spec.name, false, nil
}

// givenOnce refuses a flag that takes one value given twice, as
// flags of one command (--name=value tokens, oneToken): urfave/cli would
// keep the last one without a word. It says them as typed: -o twice, or
// -o and --output, each with its value. A flag that repeats, and a
// switch, may be given again.
func givenOnce(flags []flagArg, specs map[string]flagSpec) error {
	seen := map[string]flagArg{}
	for _, f := range flags {
		name, value, _ := strings.Cut(strings.TrimPrefix(f.token, "--"), "=")
		if spec := specs[name]; !spec.value || spec.repeats {
			continue
		}
		first, ok := seen[name]
		if !ok {
			seen[name] = f
			continue
		}
		_, firstValue, _ := strings.Cut(first.token, "=")
		more := ""
		if name == "backend" {
			more = " (--backend all compiles for every backend, with -o DIR/)"
		}
		if first.typed != f.typed {
			return usageError{fmt.Errorf("%s and %s are one flag, given twice (%s and %s), and it takes one "+
				"value: give it once%s", first.typed, f.typed, firstValue, value, more)}
		}
		return usageError{fmt.Errorf("%s is given twice, %s and %s, and takes one value: give it once%s", f.typed,
			firstValue, value, more)}
	}
	return nil
}

// beforeCommand sorts the flags written before command: help and
// version stay the program's, a flag the command takes too moves after
// it (-b argo lint . is lint --backend argo .), and any other is an error,
// since the command would not read it.
func beforeCommand(flags []flagArg, command string,
	specs map[string]flagSpec) (top []string, moved []flagArg, err error) {
	for _, f := range flags {
		name, _, _ := strings.Cut(strings.TrimPrefix(f.token, "--"), "=")
		switch _, takes := specs[name]; {
		case name == "help" || name == "version":
			top = append(top, f.token)
		case takes:
			moved = append(moved, f)
		default:
			return nil, nil, usageError{fmt.Errorf("--%s is a flag of mlcube-compile itself, not of %s, which would not read "+
				"it; give %s's flags after %q", name, command, command, command)}
		}
	}
	return top, moved, nil
}

// unknownFlag says which flag is unknown, and the one the command takes
// spelled so in another case or dash form, else what takes its place
// (foreignHint), else the nearest one the command takes.
func unknownFlag(written, scope string, specs map[string]flagSpec) error {
	where := "mlcube-compile"
	if scope != "" {
		where += " " + scope
	}
	var names []string
	for n, s := range specs {
		if n == s.name {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	flag, _, _ := strings.Cut(written, "=")
	msg := fmt.Sprintf("unknown flag %s for %s", flag, where)
	for _, n := range names {
		if w := flagWord(n); w != "" && w == flagWord(strings.TrimLeft(flag, "-")) {
			return usageError{fmt.Errorf("%s; did you mean --%s?", msg, n)}
		}
	}
	if hint := foreignHint(strings.TrimLeft(flag, "-"), scope); hint != "" {
		return usageError{fmt.Errorf("%s: %s", msg, hint)}
	}
	if near := diag.Nearest(strings.TrimLeft(flag, "-"), names); near != "" {
		msg += fmt.Sprintf("; did you mean --%s?", near)
	}
	return usageError{fmt.Errorf("%s", msg)}
}

// requestedFormat is the form of diagnostics a command line asks for,
// read before the line is parsed, so that a usage error found in parsing
// it is printed in that form too: --error-format, or lint's --format; the
// default when neither is given or the value is not a form.
func requestedFormat(app *cli.App, args []string) string {
	specs, command, format, lintFormat := flagSpecs(app.Flags, true), "", "", ""
	for i := 1; i < len(args) && args[i] != "--"; i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") || a == "-" {
			if command == "" && app.Command(a) != nil {
				command, specs = a, flagSpecs(app.Command(a).Flags, false)
			}
			continue
		}
		written, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if spec := specs[written]; spec.value && !hasValue && i+1 < len(args) {
			value, i = args[i+1], i+1
		}
		switch written {
		case "error-format":
			format = value
		case "format":
			lintFormat = value
		}
	}
	if command == "lint" && lintFormat != "" {
		format = lintFormat
	}
	if slices.Contains(diagnosticFormats, format) {
		return format
	}
	return diagnosticFormats[0]
}

// commandNames are the names of app's commands.
func commandNames(app *cli.App) []string {
	var names []string
	for _, c := range app.Commands {
		names = append(names, c.Name)
	}
	return names
}

// goFlagName is a flag's name as Go's flag package writes it in its
// errors, with one dash: "flag needs an argument: -platform".
var goFlagName = regexp.MustCompile(`(argument: |defined: |for (flag )?)-([A-Za-z0-9][A-Za-z0-9-]+)`)

// flagUsageError is urfave/cli's error about a flag, a usage error, the
// flag named as it is written: --platform, not Go's -platform.
func flagUsageError(_ *cli.Context, err error, _ bool) error {
	return usageError{fmt.Errorf("%s", goFlagName.ReplaceAllString(err.Error(), "${1}--${3}"))}
}
