package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
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

// version is set at link time; otherwise it comes from the build info.
var version = ""

// usageError marks errors in how the command was called.
type usageError struct{ error }

// run is the whole command; errors are printed here and nowhere else.
func run(args []string, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			code = report(recovered(r, args), stderr)
		}
	}()
	return report(newApp(stdout, stderr).Run(args), stderr)
}

// recovered is a panic as the bug of ours it is, with the command's
// arguments for the report.
func recovered(r any, args []string) error {
	return driver.InternalError{Input: strings.Join(args[1:], " "), Err: fmt.Errorf("%v", r)}
}

// report prints err and says what the command exits with.
func report(err error, stderr io.Writer) int {
	var ue usageError
	var due driver.UsageError
	var diags diag.Diagnostics
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errLintFound):
		return exitBadSpec
	case errors.As(err, &diags):
		fmt.Fprintln(stderr, diags.Error())
		return exitBadSpec
	case errors.As(err, &ue), errors.As(err, &due), isFlagError(err):
		fmt.Fprintf(stderr, "mlcube-compile: %v\nRun 'mlcube-compile --help' for usage.\n", err)
		return exitUsage
	default:
		fmt.Fprintf(stderr, "mlcube-compile: %v\n", err)
		return exitBadSpec
	}
}

// isFlagError recognises urfave/cli's errors about flags and arguments.
func isFlagError(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "flag provided but not defined") || strings.Contains(msg, "flag needs an argument") || strings.Contains(msg, "invalid value")
}

func newApp(stdout, stderr io.Writer) *cli.App {
	return &cli.App{
		Name:            "mlcube-compile",
		Usage:           "compile MLCubes into Argo Workflows, Tekton PipelineRuns or Kubernetes Jobs",
		UsageText:       "mlcube-compile [--backend argo|tekton|job] [--mlcube PATH] [--platform FILE] [--task FILE|NAME] [-f VALUES] [--set K=V] [-o FILE]\nmlcube-compile graph [--format mermaid|dot] [--mlcube PATH] [--task FILE] [-f VALUES] [--set K=V]",
		Version:         buildVersion(),
		Writer:          stdout,
		ErrWriter:       stderr,
		HideHelpCommand: true,
		// Cron schedules and values hold commas; each flag is one value.
		DisableSliceFlagSeparator: true,
		ExitErrHandler:            func(*cli.Context, error) {},
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			return usageError{err}
		},
		Flags:    append(specFlags(), runFlags()...),
		Action:   func(c *cli.Context) error { return compile(c, stdout, stderr) },
		Commands: []*cli.Command{graphCommand(stdout, stderr), schemaCommand(stdout), lintCommand(stdout, stderr)},
	}
}

func compile(c *cli.Context, stdout, stderr io.Writer) error {
	if c.NArg() > 0 {
		return usageError{fmt.Errorf("unexpected argument %q", c.Args().First())}
	}
	req, err := request(c)
	if err != nil {
		return err
	}
	out, err := driver.Compile(req)
	printWarnings(stderr, out.Warnings)
	if err != nil {
		return err
	}
	return writeOutput(c.String("output"), out.Bytes, stdout)
}

// printWarnings prints warnings, one a line.
func printWarnings(stderr io.Writer, warnings diag.Diagnostics) {
	for _, w := range warnings {
		fmt.Fprintln(stderr, w.String())
	}
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

// writeAtomic replaces path with data, or leaves the old file whole.
func writeAtomic(path string, data []byte) error {
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

func buildVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "devel"
}
