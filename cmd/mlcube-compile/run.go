package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/mlcube-compile/mlcube-compile/diag"
	"github.com/mlcube-compile/mlcube-compile/driver"
)

// Exit codes.
const (
	exitOK      = 0
	exitBadSpec = 1
	exitUsage   = 2
)

// usageError marks errors in how the command was called.
type usageError struct{ error }

// session is what one command line leaves for run to print: the notes
// on what it chose, the warnings found on the way, and the form
// diagnostics are printed in.
type session struct {
	stdout   io.Writer
	notes    []note
	warnings diag.Diagnostics
	// format is --error-format: text, json or github; verbose is
	// --verbose, which prints each diagnostic's detail in text.
	format  string
	verbose bool
	// command is the command run, "" for the compile: where a usage
	// error's hint points.
	command string
}

// run is the whole command; stderr is written here and nowhere else.
func run(args []string, stdout, stderr io.Writer) (code int) {
	s := &session{stdout: stdout, format: diagnosticFormats[0]}
	defer func() {
		if r := recover(); r != nil {
			code = s.report(recovered(r, args), stderr)
		}
	}()
	app := newApp(s, stderr)
	if len(args) > 2 && args[1] == completeCommand {
		if words := complete(app, args[2:]); len(words) > 0 {
			fmt.Fprintln(stdout, strings.Join(words, "\n"))
		}
		return exitOK
	}
	s.format = requestedFormat(app, args)
	s.command = commandOf(app, args)
	args, err := normalizeArgs(app, args)
	if err != nil {
		return s.report(err, stderr)
	}
	return s.report(app.Run(args), stderr)
}

// helpCommand is the command line that prints the usage of the command
// run.
func (s *session) helpCommand() string {
	if s.command == "" {
		return "mlcube-compile --help"
	}
	return "mlcube-compile " + s.command + " --help"
}

// commandOf is the command args run: the first argument, after the
// top-level flags, that names one; "" for the compile.
func commandOf(app *cli.App, args []string) string {
	for _, a := range args[1:] {
		if !strings.HasPrefix(a, "-") && app.Command(a) != nil {
			return a
		}
	}
	return ""
}

// recovered is a panic as the bug of ours it is, with the command's
// arguments for the report.
func recovered(r any, args []string) error {
	return driver.InternalError{Input: strings.Join(args[1:], " "), Err: fmt.Errorf("%v", r)}
}

// report prints the session's notes and warnings, then err, and says
// what the command exits with. A usage error is printed alone: the notes
// and warnings are about a compilation it did not make. In the json
// format, an error that is not a spec's is an entry of the one array
// (field "usage" for a usage error), not a line of text.
func (s *session) report(err error, stderr io.Writer) int {
	var diags diag.Diagnostics
	errors.As(err, &diags)
	var ue usageError
	var due driver.UsageError
	usage := err != nil && len(diags) == 0 && (errors.As(err, &ue) || errors.As(err, &due) || isFlagError(err))
	code, notes, found := exitBadSpec, s.notes, append(s.warnings, diags.Errors()...)
	var line string
	switch {
	case err == nil:
		code = exitOK
	case errors.Is(err, errLintFound), len(diags) > 0:
	case usage:
		code, notes, found = exitUsage, nil, nil
		line = fmt.Sprintf("mlcube-compile: %v\nRun '%s' for usage.", err, s.helpCommand())
	default:
		line = fmt.Sprintf("mlcube-compile: %v", err)
	}
	if line != "" && s.format == "json" {
		found = append(found, commandError(err, usage, s.helpCommand()))
		line = ""
	}
	if len(found) > 0 || len(notes) > 0 {
		if werr := writeDiagnostics(stderr, s.format, s.verbose, notes, found, ""); werr != nil && code == exitOK {
			code, line = exitBadSpec, fmt.Sprintf("mlcube-compile: %v", werr)
		}
	}
	if line != "" {
		fmt.Fprintln(stderr, line)
	}
	return code
}

// commandError is an error that is not a spec's as a diagnostic, for
// the json format: a usage error's field is "usage", and its message
// ends with the usage hint; a failure of the command itself is Internal.
func commandError(err error, usage bool, help string) diag.Diagnostic {
	if usage {
		return diag.Diagnostic{Flag: "usage", Code: diag.BadFlag, Message: err.Error() + "; run '" + help + "' for usage"}
	}
	if errors.As(err, new(driver.InternalError)) {
		return diag.Diagnostic{Code: diag.Internal, Message: err.Error()}
	}
	return diag.Diagnostic{Code: diag.CommandFailed, Message: err.Error()}
}

// isFlagError recognises urfave/cli's errors about flags and arguments.
func isFlagError(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "flag provided but not defined") || strings.Contains(msg, "flag needs an argument") ||
		strings.Contains(msg, "invalid value")
}

// versionFlag is --version, without urfave/cli's -v: -v is --verbose
// here, for every command.
var versionFlag = &cli.BoolFlag{Name: "version", Usage: "print the version"}

func newApp(s *session, stderr io.Writer) *cli.App {
	cli.VersionFlag = versionFlag
	commands := []*cli.Command{graphCommand(s), schemaCommand(s.stdout), lintCommand(s.stdout),
		verifyCommand(s.stdout), lockCommand(s), completionCommand(s.stdout)}
	for _, c := range commands {
		// A command's usage error is one line, as the compile's, never
		// its whole help on stdout.
		c.OnUsageError = flagUsageError
	}
	return &cli.App{
		Name:            "mlcube-compile",
		Usage:           "compile MLCubes into Argo Workflows, Tekton PipelineRuns or Kubernetes Jobs",
		UsageText:       usageText(commands),
		Version:         buildVersion(),
		Writer:          s.stdout,
		ErrWriter:       stderr,
		HideHelpCommand: true,
		// Cron schedules and values hold commas; each flag is one value.
		DisableSliceFlagSeparator: true,
		ExitErrHandler:            func(*cli.Context, error) {},
		OnUsageError:              flagUsageError,
		Flags:                     append(specFlags(), runFlags()...),
		Action:                    func(c *cli.Context) error { return compile(c, s) },
		Commands:                  commands,
	}
}

// compileUsage is the compile's usage, every flag of it.
const compileUsage = `mlcube-compile [--backend argo|tekton|job|all] [--mlcube PATH] [--platform FILE|-] ` +
	`[--task FILE|NAME|-] [--step NAME]...
    [-f VALUES]... [--set NAME=VALUE]... [--disable CODE]... [--kind KIND] [--schedule CRON]... [--timezone TZ]
    [--concurrency-policy Allow|Forbid|Replace] [--namespace NS] [--emit-rbac] [-o FILE|DIR/] [--format yaml|json]
    [--error-format text|json|github] [-v] [PATH|NAME=PATH]...`

// usageText is the top-level help's usage: the compile's, the first
// line of each command's, and --version.
func usageText(commands []*cli.Command) string {
	lines := []string{compileUsage}
	for _, c := range commands {
		lines = append(lines, strings.SplitN(c.UsageText, "\n", 2)[0])
	}
	return strings.Join(append(lines, "mlcube-compile --version"), "\n")
}

func compile(c *cli.Context, s *session) error {
	if err := s.readFormat(c); err != nil {
		return err
	}
	output, format, err := outputFormat(c.String("output"), c.String("format"), c.IsSet("format"), driver.OutputFormats)
	if err != nil {
		return err
	}
	req, err := request(c, s)
	if err != nil {
		return err
	}
	req.Format = format
	if req.Backend == driver.AllBackends {
		return compileEach(s, req, output)
	}
	name := outputName(req.Backend, format)
	if err := outputOnInput(output, candidateOutput(output, name), namedInputs(req.Compiler), name); err != nil {
		return err
	}
	out, err := driver.Compile(req)
	s.warnings = append(s.warnings, out.Warnings...)
	if err != nil {
		explainEmptied(err, s.stdout, name)
		return err
	}
	if err := outputOnInput(output, candidateOutput(output, name), inputs(req.Workspace), name); err != nil {
		return err
	}
	path, err := outputFile(output, name)
	if err != nil {
		return err
	}
	return writeOutput(path, out.Bytes, s.stdout)
}

// readFormat takes --error-format.
func (s *session) readFormat(c *cli.Context) error {
	if err := checkFormat("error-format", c.String("error-format")); err != nil {
		return err
	}
	s.format = c.String("error-format")
	s.verbose = c.Bool("verbose")
	return nil
}

// writeOutput writes out to path atomically, or to stdout without one.
func writeOutput(path string, out []byte, stdout io.Writer) error {
	if path != "" {
		if err := writeAtomic(path, out); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
		return nil
	}
	if _, err := stdout.Write(out); err != nil {
		return fmt.Errorf("writing the output: %w", err)
	}
	return nil
}

// writeAtomic replaces path with data, or leaves the old file whole. Its
// errors are about path, never the temporary file beside it, which the
// user did not name.
func writeAtomic(path string, data []byte) error {
	if err := writeThroughTemp(path, data); err != nil {
		var pathErr *fs.PathError
		var linkErr *os.LinkError
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return fmt.Errorf("the folder %s does not exist; create it first", filepath.Dir(path))
		case errors.As(err, &pathErr):
			return pathErr.Err
		case errors.As(err, &linkErr):
			return linkErr.Err
		}
		return err
	}
	return nil
}

// writeThroughTemp writes data to a temporary file beside path, then
// renames it to path. A symlink is followed, so that its target is
// replaced and the link kept; what is not a regular file (a device such
// as /dev/null or /dev/stdout, a FIFO) is written to as it is: renamed
// over, it would be replaced by a file, and as root /dev/null with it.
func writeThroughTemp(path string, data []byte) error {
	if target, err := filepath.EvalSymlinks(path); err == nil {
		path = target
	}
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() && !fi.IsDir() {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			return err
		}
		if _, err := f.Write(data); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
