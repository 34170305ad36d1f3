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

	"github.com/mlcube-compile/mlcube-compile/backends/argo"
	"github.com/mlcube-compile/mlcube-compile/backends/manifest"
	"github.com/mlcube-compile/mlcube-compile/compiler"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
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

// internalError is a failure of mlcube-compile itself on input it had
// accepted, such as an upstream validator rejecting the output.
type internalError struct {
	input string
	err   error
}

func (e internalError) Error() string {
	return fmt.Sprintf("internal error compiling %s: %v\nThis is a bug in mlcube-compile; please report it with the input at %s", e.input, e.err, issueURL)
}

// issueURL is where bugs are reported.
const issueURL = "https://github.com/mlcube-compile/mlcube-compile/issues"

// run is the whole command; errors are printed here and nowhere else.
func run(args []string, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "mlcube-compile: %v\n", internalError{input: strings.Join(args[1:], " "), err: fmt.Errorf("%v", r)})
			code = exitBadSpec
		}
	}()
	app := newApp(stdout, stderr)
	err := app.Run(args)
	var ue usageError
	var diags diag.Diagnostics
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errLintFound):
		return exitBadSpec
	case errors.As(err, &diags):
		fmt.Fprintln(stderr, diags.Error())
		return exitBadSpec
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "mlcube-compile: %v\nRun 'mlcube-compile --help' for usage.\n", ue.error)
		return exitUsage
	case isFlagError(err):
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
	emit, ok := backends[c.String("backend")]
	if !ok {
		return usageError{fmt.Errorf("unknown backend %q (backends: %s)", c.String("backend"), backendList())}
	}
	opts, err := compilerOptions(c)
	if err != nil {
		return err
	}
	kind, err := kindOptions(c, &opts)
	if err != nil {
		return err
	}
	p, err := compileSpecs(opts, stderr)
	if err != nil {
		return err
	}
	if p.Schedule != nil && kind != argo.KindCronWorkflow {
		fmt.Fprintln(stderr, diag.Warnf(p.Spec.Field("schedule"), "is used only with --backend argo --kind cronworkflow"))
	}
	objs, warnings, err := emit(p, emitOptions{RBAC: c.Bool("emit-rbac"), Kind: kind})
	for _, w := range warnings {
		fmt.Fprintln(stderr, w.String())
	}
	var tooLarge *manifest.TooLargeError
	var unsupported *manifest.SpecError
	switch {
	case errors.As(err, &tooLarge):
		return diag.Diagnostics{{Pos: diag.Pos{File: p.Source}, Field: "steps", Message: err.Error()}}
	case errors.As(err, &unsupported):
		return diag.Diagnostics{{Pos: diag.Pos{File: p.Source}, Field: unsupported.Field, Message: unsupported.Message}}
	case err != nil:
		return internalError{input: describe(opts), err: err}
	}
	out, err := manifest.Encode(objs...)
	if err != nil {
		return internalError{input: describe(opts), err: err}
	}
	return writeOutput(c.String("output"), out, stdout)
}

// compileSpecs compiles the specs, printing warnings to stderr; errors
// are returned, for run to print.
func compileSpecs(opts compiler.Options, stderr io.Writer) (*ir.Pipeline, error) {
	p, diags := compiler.Compile(opts)
	for _, w := range diags.Warnings() {
		fmt.Fprintln(stderr, w.String())
	}
	if diags.HasErrors() {
		return nil, diags.Errors()
	}
	return p, nil
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

// describe names the inputs of a compilation, for error reports.
func describe(o compiler.Options) string {
	parts := []string{"--mlcube " + o.MLCube}
	if o.Platform != "" {
		parts = append(parts, "--platform "+o.Platform)
	}
	if o.Task != "" {
		parts = append(parts, "--task "+o.Task)
	}
	return strings.Join(parts, " ")
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
