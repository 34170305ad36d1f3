package main

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// TestUsageLinesListEveryForm checks the usage lines of --help: the
// top-level help has a line for the compile and for every command, and
// each line, the top-level one and each command's own, names every flag
// of its command.
func TestUsageLinesListEveryForm(t *testing.T) {
	app := newApp(&session{stdout: io.Discard}, io.Discard)
	// A form is a line that starts with mlcube-compile, with the indented
	// lines that continue it.
	var forms []string
	for _, l := range strings.Split(app.UsageText, "\n") {
		if strings.HasPrefix(l, " ") && len(forms) > 0 {
			forms[len(forms)-1] += "\n" + l
		} else {
			forms = append(forms, l)
		}
	}
	form := func(command string) string {
		for _, f := range forms {
			word := strings.Fields(strings.TrimPrefix(f, "mlcube-compile") + " ")
			switch {
			case !strings.HasPrefix(f, "mlcube-compile "):
			case command == "" && (strings.HasPrefix(word[0], "[") || word[0] == "--version"):
				return f
			case command != "" && word[0] == command:
				return f
			}
		}
		return ""
	}
	checkFlags(t, "mlcube-compile --help, the compile's line", form(""), app.Flags)
	if !strings.Contains(app.UsageText, "mlcube-compile --version") {
		t.Errorf("mlcube-compile --help: no line for --version in\n%s", app.UsageText)
	}
	for _, c := range app.VisibleCommands() {
		top := form(c.Name)
		if top == "" {
			t.Errorf("mlcube-compile --help: no usage line for %s in\n%s", c.Name, app.UsageText)
			continue
		}
		checkFlags(t, "mlcube-compile --help, the line of "+c.Name, top, c.Flags)
		checkFlags(t, "mlcube-compile "+c.Name+" --help", c.UsageText, c.Flags)
	}
}

// checkFlags wants every flag of flags named in usage, by its name or an
// alias.
func checkFlags(t *testing.T, where, usage string, flags []cli.Flag) {
	t.Helper()
	for _, f := range flags {
		found := false
		for _, n := range f.Names() {
			dash := "--"
			if len(n) == 1 {
				dash = "-"
			}
			found = found || strings.Contains(usage+" ", dash+n+" ") || strings.Contains(usage, dash+n+"]") ||
				strings.Contains(usage, dash+n+"|")
		}
		if !found {
			t.Errorf("%s: no --%s in\n%s", where, f.Names()[0], usage)
		}
	}
}

// TestFlagUsageErrorNamesLongFlags: an error of Go's flag package, which
// urfave/cli passes on, names a long flag with --, as it is written, and
// a one-letter one with -.
func TestFlagUsageErrorNamesLongFlags(t *testing.T) {
	for in, want := range map[string]string{
		"flag needs an argument: -platform":                     "flag needs an argument: --platform",
		`invalid boolean value "x" for -emit-rbac: parse error`: `invalid boolean value "x" for --emit-rbac: parse error`,
		`invalid value "x" for flag -kind: bad`:                 `invalid value "x" for flag --kind: bad`,
		"flag provided but not defined: -zz":                    "flag provided but not defined: --zz",
		"flag needs an argument: -o":                            "flag needs an argument: -o",
	} {
		err := flagUsageError(nil, errors.New(in), false)
		if got := err.Error(); got != want {
			t.Errorf("%q: got %q, want %q", in, got, want)
		}
		if !errors.As(err, new(usageError)) {
			t.Errorf("%q: not a usage error", in)
		}
	}
}
