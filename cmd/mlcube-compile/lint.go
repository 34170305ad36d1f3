package main

import (
	"errors"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/mlcube-compile/mlcube-compile/driver"
	"github.com/mlcube-compile/mlcube-compile/lint"
)

// errLintFound makes lint exit 1 after it has printed its report.
var errLintFound = errors.New("lint found errors")

func lintCommand(stdout io.Writer) *cli.Command {
	return &cli.Command{
		Name:      "lint",
		Usage:     "check every cube, platform and pipeline file under the paths, on every backend or those --backend names",
		UsageText: "mlcube-compile lint [--backend argo|tekton|job]... [--format text|json|github] [--strict] [--platform GLOB] [--task GLOB] [--cache DIR] [PATH...]",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "backend", Aliases: []string{"b"}, Usage: "check for backend `NAME` only (" + strings.Join(driver.Backends(), ", ") + "); repeatable; default: every backend"},
			&cli.StringFlag{Name: "format", Value: diagnosticFormats[0], Usage: "text, json, or github (GitHub Actions annotations)"},
			&cli.BoolFlag{Name: "strict", Usage: "count warnings as errors"},
			&cli.StringFlag{Name: "platform", Usage: "treat files matching `GLOB` as platform files, whatever their content"},
			&cli.StringFlag{Name: "task", Usage: "treat files matching `GLOB` as pipeline or invoke files, whatever their content"},
			&cli.StringFlag{Name: "cache", Usage: "keep each compilation's result in folder `DIR`, and reuse it while the binary, the flags and every file it read are unchanged; default: no cache"},
		},
		Action: func(c *cli.Context) error {
			format := c.String("format")
			if err := checkFormat("format", format); err != nil {
				return err
			}
			opts := lint.Options{PlatformGlob: c.String("platform"), TaskGlob: c.String("task"), Strict: c.Bool("strict"), Backends: c.StringSlice("backend")}
			if err := withCache(&opts, c.String("cache")); err != nil {
				return usageError{err}
			}
			report, err := lint.Run(c.Args().Slice(), opts)
			if err != nil {
				return usageError{err}
			}
			if err := writeDiagnostics(stdout, format, nil, report.Diagnostics, lintSummary(report.Files, report.Diagnostics)); err != nil {
				return err
			}
			if report.Diagnostics.HasErrors() {
				return errLintFound
			}
			return nil
		},
	}
}

// withCache sets lint's cache from --cache DIR, when it is given.
func withCache(opts *lint.Options, dir string) error {
	if dir == "" {
		return nil
	}
	c, err := openCache(dir)
	if err != nil {
		return err
	}
	version, err := cacheVersion()
	if err != nil {
		return err
	}
	opts.Cache, opts.CacheVersion = c, version
	return nil
}
