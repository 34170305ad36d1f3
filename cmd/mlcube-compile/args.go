package main

import (
	"fmt"
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
}

// flagSpecs are a command's flags by each name and alias, with the help
// and completion flags urfave/cli adds.
func flagSpecs(flags []cli.Flag, top bool) map[string]flagSpec {
	out := map[string]flagSpec{
		"help": {name: "help"}, "h": {name: "help"},
		"generate-bash-completion": {name: "generate-bash-completion"},
	}
	if top {
		out["version"], out["v"] = flagSpec{name: "version"}, flagSpec{name: "version"}
	}
	for _, f := range flags {
		names := f.Names()
		_, isBool := f.(*cli.BoolFlag)
		for _, n := range names {
			out[n] = flagSpec{name: names[0], value: !isBool}
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
	for _, a := range args {
		if a == "--generate-bash-completion" {
			return args, nil
		}
	}
	specs, scope := flagSpecs(app.Flags, true), ""
	head, flags, rest := []string{args[0]}, []string(nil), []string(nil)
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			rest = append(rest, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(a, "-") && a != "-":
			written, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
			spec, ok := specs[written]
			if !ok {
				return nil, unknownFlag(a, scope, specs)
			}
			flags = append(flags, "--"+spec.name)
			switch {
			case hasValue:
				flags[len(flags)-1] += "=" + value
			case spec.value && i+1 < len(args):
				flags = append(flags, args[i+1])
				i++
			}
		case scope == "" && len(rest) == 0 && app.Command(a) != nil:
			head = append(append(head, flags...), a)
			flags, scope = nil, a
			specs = flagSpecs(app.Command(a).Flags, false)
		default:
			rest = append(rest, a)
		}
	}
	out := append(head, flags...)
	for _, a := range rest {
		if strings.HasPrefix(a, "-") && a != "-" {
			return append(append(out, "--"), rest...), nil
		}
	}
	return append(out, rest...), nil
}

// unknownFlag says which flag is unknown, and the nearest one the command
// takes.
func unknownFlag(written, scope string, specs map[string]flagSpec) error {
	where := "mlcube-compile"
	if scope != "" {
		where += " " + scope
	}
	var names []string
	for n, s := range specs {
		if n == s.name && n != "generate-bash-completion" {
			names = append(names, n)
		}
	}
	msg := fmt.Sprintf("unknown flag %s for %s", written, where)
	if near := diag.Nearest(strings.TrimLeft(strings.SplitN(written, "=", 2)[0], "-"), names); near != "" {
		msg += fmt.Sprintf("; did you mean --%s?", near)
	}
	return usageError{fmt.Errorf("%s", msg)}
}
