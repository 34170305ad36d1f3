package lint

import (
	"fmt"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/mlcube-compile/mlcube-compile/compiler"
	"github.com/mlcube-compile/mlcube-compile/diag"
	"github.com/mlcube-compile/mlcube-compile/driver"
	"github.com/mlcube-compile/mlcube-compile/schema"
)

// Options are lint's flags.
type Options struct {
	// PlatformGlob and TaskGlob, when set, make the files they match
	// platform files and pipeline or invoke files, whatever their content.
	PlatformGlob, TaskGlob string
	// Strict counts warnings as errors: those left once Disable and the
	// specs' disable comments have silenced theirs.
	Strict bool
	// Disable are the codes of warnings not to report (--disable).
	Disable []diag.Code
	// Backends are the backends to check for; every backend when empty.
	Backends []string
	// Values (-f) and Set (--set) fill the params of every pipeline
	// linted that has them, as a compile's -f and --set do; a name no
	// pipeline has is an error (sharedValues).
	Values []string
	Set    []compiler.Setting
	// Exclude are globs of files and folders not to lint, matched as
	// PlatformGlob is, against the path or the name: a folder that
	// matches is not walked into, such as a cookiecutter template's.
	Exclude []string
	// Cache, when set, keeps each compilation's result between runs
	// (--cache): a compilation whose options, backends, tool and every
	// file it looked at are unchanged is not run again. CacheVersion
	// names the tool; a different one finds nothing.
	Cache        Cache
	CacheVersion string
}

// Report is what lint found.
type Report struct {
	// Files counts the spec files found.
	Files int
	// Diagnostics are every problem, sorted, each file's once.
	Diagnostics diag.Diagnostics
	// Skipped are the YAML files found that are not cube, platform or
	// pipeline files (other tools' YAML, values files), sorted.
	Skipped []string
}

// Run lints the spec files under paths ("." when none). Its error is about
// how it was called: a bad glob, an unknown backend, a path that is not
// there, no spec file found.
func Run(paths []string, opts Options) (Report, error) {
	if err := driver.CheckBackends(opts.Backends); err != nil {
		return Report{}, err
	}
	for _, g := range append([]string{opts.PlatformGlob, opts.TaskGlob}, opts.Exclude...) {
		if err := checkGlob(g); err != nil {
			return Report{}, err
		}
	}
	if len(paths) == 0 {
		paths = []string{"."}
	}
	g := newGlobs()
	set, err := find(paths, opts, g)
	if err != nil {
		return Report{}, err
	}
	sort.Strings(set.skipped)
	if len(set.files) == 0 {
		return Report{Skipped: set.skipped}, fmt.Errorf("found no mlcube.yaml, platform or pipeline file under %s%s",
			strings.Join(paths, ", "), skippedNote(set.skipped))
	}
	units := set.units()
	for i := range units {
		units[i].opts.Disable = opts.Disable
	}
	if err := giveValues(units, opts, paths); err != nil {
		return Report{Skipped: set.skipped}, err
	}
	results := runUnits(units, opts)
	hadErrors := make([]bool, len(results))
	for i, r := range results {
		hadErrors[i] = r.Diagnostics.HasErrors()
	}
	settingsUnused(units, results)
	aloneNotes(units, results, opts.Disable)
	diags := append(unusedValues(units, results), compiler.Silence(nil, g.unmatched(opts, paths), opts.Disable)...)
	diags = append(diags, unusedComments(results, hadErrors, opts)...).Sorted()
	if opts.Strict {
		for i := range diags {
			// A note says what was chosen, and is no warning.
			if diags[i].Severity == diag.Warning {
				diags[i].Severity = diag.Error
			}
		}
	}
	return Report{Files: len(set.files), Diagnostics: diags, Skipped: set.skipped}, nil
}

// skippedNote says how many YAML files were found and skipped, for the
// error that no spec file was found.
func skippedNote(skipped []string) string {
	switch len(skipped) {
	case 0:
		return ""
	case 1:
		return " (1 other YAML file skipped; lint --verbose names it)"
	}
	return fmt.Sprintf(" (%d other YAML files skipped; lint --verbose names them)", len(skipped))
}

// checkGlob checks a glob's syntax.
func checkGlob(glob string) error {
	if glob == "" {
		return nil
	}
	if _, err := filepath.Match(glob, ""); err != nil {
		return fmt.Errorf("bad glob %q: %v", glob, err)
	}
	return nil
}

// result is what lint found of one unit: its diagnostics, and what
// silencing them found (the files it read, the disable comments used).
type result struct {
	Diagnostics diag.Diagnostics  `json:"diagnostics"`
	Silenced    compiler.Silenced `json:"silenced"`
}

// runUnits runs the units on a worker per CPU, each with its own schema
// (a CUE context serves one goroutine at a time), and returns each one's
// result, by index, so the report never depends on which worker finished
// first.
func runUnits(units []unit, opts Options) []result {
	results := make([]result, len(units))
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
					results[i].Diagnostics = diag.Diagnostics{
						diag.Errorf(diag.Internal, diag.At(diag.Pos{File: units[i].name()}).Field("schema"), "%v", err)}
					continue
				}
				results[i] = checkCached(units[i], s, opts)
			}
		}()
	}
	for i := range units {
		next <- i
	}
	close(next)
	wg.Wait()
	return results
}

// checkCached is check through opts.Cache, when there is one: a unit
// whose key and files are unchanged since a run kept its result is not
// run again. A platform file checked on its own, and a unit that panics,
// are not kept.
func checkCached(u unit, s *schema.Schema, opts Options) result {
	if opts.Cache == nil || u.platformOnly != "" {
		return check(u, s, opts.Backends)
	}
	key, ok := unitKey(u, opts)
	if !ok {
		return check(u, s, opts.Backends)
	}
	if e, hit := cached(opts.Cache, key, compiler.Disk); hit {
		return e.Result
	}
	rec := newRecorder(compiler.Disk)
	u.opts.FS = rec
	r, panicked := checkUnit(u, s, opts.Backends)
	if !panicked {
		keep(opts.Cache, key, rec, r)
	}
	return r
}

// check compiles one unit and emits it for each of backends (every
// backend when there are none) that applies. A panic is reported against
// the unit as a bug of ours, as a single compile reports one.
func check(u unit, s *schema.Schema, backends []string) result {
	r, _ := checkUnit(u, s, backends)
	return r
}

// checkUnit is check, saying whether it recovered from a panic.
func checkUnit(u unit, s *schema.Schema, backends []string) (r result, panicked bool) {
	defer func() {
		if p := recover(); p != nil {
			r = result{Diagnostics: diag.Diagnostics{diag.Errorf(diag.Internal, diag.At(diag.Pos{File: u.name()}).Field("lint"),
				"%s", driver.InternalError{Input: driver.Describe(u.opts), Err: fmt.Errorf("%v", p)})}}
			panicked = true
		}
	}()
	if u.platformOnly != "" {
		w := compiler.Load(compiler.Options{FS: u.opts.FS, Disable: u.opts.Disable})
		diags := w.Silence(w.CheckPlatform(u.platformOnly))
		rec := w.Silenced()
		rec.Files = []string{u.platformOnly}
		return result{diags, rec}, false
	}
	u.opts.Schema = s
	diags, rec := driver.Lint(u.opts, backends)
	return result{diags, rec}, false
}
