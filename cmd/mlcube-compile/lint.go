package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/urfave/cli/v2"

	"github.com/mlcube-compile/mlcube-compile/backends/argo"
	"github.com/mlcube-compile/mlcube-compile/backends/manifest"
	"github.com/mlcube-compile/mlcube-compile/compiler"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
	"github.com/mlcube-compile/mlcube-compile/schema"
)

// lintFormats are the --format values of lint, the default first.
var lintFormats = []string{"text", "json", "github"}

// errLintFound makes lint exit 1 after it has printed its report.
var errLintFound = errors.New("lint found errors")

func lintCommand(stdout, stderr io.Writer) *cli.Command {
	return &cli.Command{
		Name:      "lint",
		Usage:     "check every cube, platform and pipeline file under the paths, on every backend",
		UsageText: "mlcube-compile lint [--format text|json|github] [--strict] [--platform GLOB] [--task GLOB] [PATH...]\n(flags come before the paths)",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Value: lintFormats[0], Usage: "text, json, or github (GitHub Actions annotations)"},
			&cli.BoolFlag{Name: "strict", Usage: "count warnings as errors"},
			&cli.StringFlag{Name: "platform", Usage: "treat files matching `GLOB` as platform files, whatever their content"},
			&cli.StringFlag{Name: "task", Usage: "treat files matching `GLOB` as pipeline or invoke files, whatever their content"},
		},
		Action: func(c *cli.Context) error {
			format := c.String("format")
			if !slices.Contains(lintFormats, format) {
				return usageError{fmt.Errorf("unknown --format %q (formats: %s)", format, strings.Join(lintFormats, ", "))}
			}
			for _, g := range []string{c.String("platform"), c.String("task")} {
				if _, err := globMatchErr(g); err != nil {
					return usageError{err}
				}
			}
			paths := c.Args().Slice()
			if len(paths) == 0 {
				paths = []string{"."}
			}
			set, err := findSpecs(paths, c.String("platform"), c.String("task"))
			if err != nil {
				return usageError{err}
			}
			if len(set.files) == 0 {
				return usageError{fmt.Errorf("found no mlcube.yaml, platform or pipeline file under %s", strings.Join(paths, ", "))}
			}
			diags := lintUnits(set.units())
			if c.Bool("strict") {
				for i := range diags {
					diags[i].Severity = diag.Error
				}
			}
			if err := writeLintReport(stdout, format, len(set.files), diags); err != nil {
				return err
			}
			if diags.HasErrors() {
				return errLintFound
			}
			return nil
		},
	}
}

// globMatchErr checks a glob's syntax.
func globMatchErr(glob string) (bool, error) {
	if glob == "" {
		return false, nil
	}
	if _, err := filepath.Match(glob, ""); err != nil {
		return false, fmt.Errorf("bad glob %q: %v", glob, err)
	}
	return true, nil
}

// lintUnits runs the units on a worker per CPU, each with its own schema,
// and returns every diagnostic, sorted and without duplicates: the same
// file read by two units is reported once.
func lintUnits(units []lintUnit) diag.Diagnostics {
	results := make([]diag.Diagnostics, len(units))
	next := make(chan int)
	var wg sync.WaitGroup
	workers := min(runtime.GOMAXPROCS(0), len(units))
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := schema.New()
			for i := range next {
				if err != nil {
					results[i] = diag.Diagnostics{{Pos: diag.Pos{File: units[i].name()}, Field: "schema", Message: err.Error()}}
					continue
				}
				results[i] = lintUnit1(units[i], s)
			}
		}()
	}
	for i := range units {
		next <- i
	}
	close(next)
	wg.Wait()
	var all diag.Diagnostics
	for _, r := range results {
		all = append(all, r...)
	}
	return all.Sorted()
}

// argoValidatorMu serialises Argo's validator: it counts placeholders in
// a package variable without a lock (workflow/common/placeholder.go).
var argoValidatorMu sync.Mutex

// lintUnit1 compiles one unit and emits it for every backend that
// applies. A panic is reported against the unit as a bug of ours, as run
// reports one for a single compile.
func lintUnit1(u lintUnit, s *schema.Schema) (diags diag.Diagnostics) {
	defer func() {
		if r := recover(); r != nil {
			diags = diag.Diagnostics{{Pos: diag.Pos{File: u.name()}, Field: "lint", Message: internalError{input: describe(u.opts), err: fmt.Errorf("%v", r)}.Error()}}
		}
	}()
	if u.platformOnly != "" {
		return compiler.CheckPlatform(u.platformOnly)
	}
	u.opts.Schema = s
	p, diags := compiler.Compile(u.opts)
	if diags.HasErrors() {
		return diags
	}
	return append(diags, emitAll(p)...)
}

// lintTarget is one backend, and its options, that lint emits for.
type lintTarget struct {
	backend string
	opts    emitOptions
}

// emitAll emits p for every backend, and as a CronWorkflow when it has a
// schedule, each checked by its engine's validator. The job backend
// applies only to one task with every param set; where it refuses, it
// does not apply. The backends' warnings are kept as they are, each at
// what it is about.
func emitAll(p *ir.Pipeline) diag.Diagnostics {
	var out diag.Diagnostics
	at := diag.Pos{File: p.Source}
	targets := []lintTarget{{"argo", emitOptions{}}, {"tekton", emitOptions{}}, {"job", emitOptions{}}}
	if p.Schedule != nil && allParamsSet(p) {
		targets = append(targets, lintTarget{"argo", emitOptions{Kind: argo.KindCronWorkflow}})
	}
	for _, t := range targets {
		if t.backend == "argo" {
			argoValidatorMu.Lock()
		}
		_, warnings, err := backends[t.backend](p, t.opts)
		if t.backend == "argo" {
			argoValidatorMu.Unlock()
		}
		var spec *manifest.SpecError
		var tooLarge *manifest.TooLargeError
		switch {
		case t.backend == "job" && errors.As(err, &spec):
			continue
		case errors.As(err, &spec):
			out = append(out, diag.Diagnostic{Pos: at, Field: spec.Field, Message: t.backend + ": " + spec.Message})
		case errors.As(err, &tooLarge):
			out = append(out, diag.Diagnostic{Pos: at, Field: "steps", Message: t.backend + ": " + err.Error()})
		case err != nil:
			out = append(out, diag.Diagnostic{Pos: at, Field: t.backend, Message: internalError{input: p.Source, err: err}.Error()})
		}
		out = append(out, warnings...)
	}
	return out
}

// allParamsSet reports whether every param has a value.
func allParamsSet(p *ir.Pipeline) bool {
	for _, pp := range p.Params {
		if pp.Default == nil {
			return false
		}
	}
	return true
}
