package main

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/mlcube-compile/mlcube-compile/compiler"
	"github.com/mlcube-compile/mlcube-compile/diag"
	"github.com/mlcube-compile/mlcube-compile/driver"
	"github.com/mlcube-compile/mlcube-compile/lint"
)

// errLintFound makes lint exit 1 after it has printed its report.
var errLintFound = errors.New("lint found errors")

func lintCommand(stdout io.Writer) *cli.Command {
	return &cli.Command{
		Name: "lint",
		Description: "A YAML file lint cannot parse is checked when its top-level keys are a spec's (steps:, tasks: with\n" +
			"docker: or name:, schema_type:, or only platform keys), so its mistake is reported at its line and column.\n" +
			"Other YAML files (other tools', values files) are skipped; the summary counts them and --verbose names them.",
		Usage: "check every cube, platform and pipeline file under the paths, on every backend or those --backend names",
		UsageText: "mlcube-compile lint [--backend argo|tekton|job]... [--format|--error-format text|json|github] " +
			"[--strict] [--disable CODE]... [-f VALUES]... [--set NAME=VALUE]... [--verbose] [--platform GLOB] [--task GLOB] " +
			"[--exclude GLOB]... [--fix] [--cache DIR] [PATH...]",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "backend", Aliases: []string{"b"},
				Usage: "check for backend `NAME` only (" + strings.Join(driver.Backends(), ", ") +
					"); repeatable; default: every backend"},
			&cli.StringFlag{Name: "format", Aliases: []string{"error-format"}, Value: diagnosticFormats[0],
				Usage: "text, json, or github (GitHub Actions annotations); --error-format, as compile and graph spell it, " +
					"is the same flag"},
			&cli.BoolFlag{Name: "strict", Usage: "count warnings as errors (those --disable and the specs' disable " +
				"comments leave)"},
			disableFlag(),
			valuesFlag("values `FILE` of param: value lines, for every pipeline linted that has those params, as the " +
				"compile's -f (an MPI, Dask or torch step's ${params.X} needs a value at compile time); repeatable, " +
				"later files win"),
			setFlag("give param `NAME=VALUE` a value in every pipeline linted that has it, as the compile's --set; " +
				"repeatable, wins over -f"),
			&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"},
				Usage: "also name each YAML file skipped as not a cube, platform or pipeline file, and print each problem's " +
					"detail: why, and the cluster's or versions' facts behind it"},
			&cli.StringFlag{Name: "platform", Usage: "treat files matching `GLOB` as platform files, whatever their content"},
			&cli.StringFlag{Name: "task", Usage: "treat files matching `GLOB` as pipeline or invoke files, " +
				"whatever their content"},
			&cli.StringSliceFlag{Name: "exclude",
				Usage: "skip files and folders matching `GLOB` (their path or name), such as templates; repeatable"},
			&cli.BoolFlag{Name: "fix", Usage: "make the edit each problem's fix carries (a misspelt key, name or code " +
				"made the nearest one there is) in its file, then report what is left"},
			&cli.StringFlag{Name: "cache",
				Usage: "keep each compilation's result in folder `DIR`, and reuse it while the binary, the flags and every file " +
					"it read are unchanged; default: no cache"},
		},
		Action: func(c *cli.Context) error {
			format := c.String("format")
			if err := checkFormat("format", format); err != nil {
				return err
			}
			disabled, err := disabledCodes(c)
			if err != nil {
				return err
			}
			set, err := settings(c)
			if err != nil {
				return err
			}
			opts := lint.Options{PlatformGlob: c.String("platform"), TaskGlob: c.String("task"), Strict: c.Bool("strict"),
				Disable: disabled, Backends: c.StringSlice("backend"), Exclude: c.StringSlice("exclude"),
				Values: c.StringSlice("values"), Set: set}
			if err := withCache(&opts, c.String("cache")); err != nil {
				return usageError{err}
			}
			report, err := lint.Run(c.Args().Slice(), opts)
			if err != nil {
				return usageError{err}
			}
			fixed := 0
			if c.Bool("fix") {
				if fixed, err = applyFixes(report.Diagnostics); err != nil {
					return err
				}
				if fixed > 0 {
					// What is left is what the fixed files say now.
					if report, err = lint.Run(c.Args().Slice(), opts); err != nil {
						return usageError{err}
					}
				}
			}
			var notes []note
			if c.Bool("verbose") && !slices.Contains(disabled, diag.FileSkipped) {
				notes = skippedNotes(report.Skipped)
			}
			summary := lintSummary(report)
			if c.Bool("fix") {
				summary += fmt.Sprintf("; %s fixed", plural(fixed, "problem"))
			}
			if err := writeDiagnostics(stdout, format, c.Bool("verbose"), notes, report.Diagnostics,
				summary); err != nil {
				return err
			}
			if report.Diagnostics.HasErrors() {
				return errLintFound
			}
			return nil
		},
	}
}

// applyFixes makes, in the files, the edits of the problems' fixes
// (diag.ApplyFixes: each problem's whole fix or none of it), each file
// replaced whole or left as it was, and says how many problems it fixed.
func applyFixes(ds diag.Diagnostics) (int, error) {
	src := map[string][]byte{}
	for _, d := range ds {
		for _, f := range d.Fixes {
			for _, e := range f.Edits {
				if _, read := src[e.Pos.File]; read || e.Pos.File == "" {
					continue
				}
				b, err := os.ReadFile(e.Pos.File)
				if err != nil {
					return 0, fmt.Errorf("--fix: %w", err)
				}
				src[e.Pos.File] = b
			}
		}
	}
	files, fixed, _ := diag.ApplyFixes(src, ds)
	for _, name := range slices.Sorted(maps.Keys(files)) {
		info, err := os.Stat(name)
		if err == nil {
			err = writeAtomic(name, files[name])
		}
		if err == nil {
			err = os.Chmod(name, info.Mode().Perm()) // the file keeps its mode
		}
		if err != nil {
			return 0, fmt.Errorf("--fix: %s: %w", name, err)
		}
	}
	return len(fixed), nil
}

// skippedNotes name the YAML files lint skipped, for --verbose.
func skippedNotes(skipped []string) []note {
	var notes []note
	for _, path := range skipped {
		msg := "skipped: YAML that is not a cube, platform or pipeline file (a values file, or another tool's); if it is a " +
			"spec, name it mlcube.yaml, platform.yaml or pipeline.yaml, or match it with --task GLOB or --platform GLOB"
		if compiler.Classify(path) == compiler.KubernetesObject {
			msg = "skipped: a Kubernetes object (top-level apiVersion and kind), such as compiled output, not a spec"
		}
		notes = append(notes, note{File: path, Flag: "lint", Message: msg, Code: diag.FileSkipped})
	}
	return notes
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
