package compiler

import (
	"cmp"
	"io/fs"
	"slices"
	"strings"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/lower"
	"github.com/mlcube-compile/mlcube-compile/compiler/internal/passes"
	"github.com/mlcube-compile/mlcube-compile/compiler/internal/source"
	"github.com/mlcube-compile/mlcube-compile/compiler/internal/spec"
	"github.com/mlcube-compile/mlcube-compile/compiler/internal/verify"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
	"github.com/mlcube-compile/mlcube-compile/schema"
)

// Options are the files one compilation reads. Compile reads exactly
// these; Pair fills in those the command line leaves out.
type Options struct {
	// MLCube is a cube folder or its mlcube.yaml; "." when empty.
	MLCube string
	// Platform is a platform file, or a legacy docker platform file
	// (schema_type: mlcube_platform); optional.
	Platform string
	// Task is a pipeline file, a legacy invoke file, or the name of one
	// task of the cube; optional. Without it, every task of the cube runs,
	// wired by path flow.
	Task string
	// Values are values files (-f), each a mapping of param names to
	// values, read in order; Set (--set) comes after them. Each value
	// becomes its param's default.
	Values []string
	Set    []Setting
	// SharedValues says Values and Set are given to many pipelines at
	// once, as lint gives them: one for a param this pipeline does not
	// have is a note (diag.UnknownName, with an error's words), not an
	// error; lint reports it when no pipeline had the param.
	SharedValues bool
	// Steps (--step) are the steps of a pipeline file to compile, as it
	// writes their names; every step when empty. The others are left
	// out, with the after: entries that name them.
	Steps []string
	// Paths (NAME=PATH arguments, as mlcube run takes them) give the
	// parameter NAME of every task of a cube the path PATH, with no
	// pipeline file.
	Paths []Setting
	// Version and Commit are the compiler's, which the provenance of a
	// run names (ir.Provenance); devel and unknown commit when empty.
	Version, Commit string
	// NeedValues, when set, says why every param needs a value at compile
	// time, such as "a Job has no run-time parameters".
	NeedValues string
	// Namespace, when set, replaces the platform's namespace (--namespace).
	Namespace string
	// Schedule overrides the pipeline file's schedule: key, field by field.
	Schedule ScheduleOptions
	// Disable are the codes of warnings not to report (--disable), as
	// Silence drops them with those the specs' disable comments name.
	Disable []diag.Code
	// FS, when set, is where files are read from, by the paths above;
	// the machine's own files otherwise.
	FS fs.FS
	// Schema, when set, replaces the shared schema: a CUE context serves
	// one goroutine at a time, so lint gives each worker its own.
	Schema *schema.Schema
}

// Compile reads the specs, checks them and lowers them to the IR. The
// Diagnostics, sorted, hold every error and warning; the pipeline is nil
// when there are errors.
func Compile(opts Options) (*ir.Pipeline, diag.Diagnostics) { return Load(opts).Compile() }

// compileFiles is Compile of opts, reading through files.
func compileFiles(files *source.Files, opts Options) (*ir.Pipeline, diag.Diagnostics) {
	s, err := opts.Schema, error(nil)
	if s == nil {
		s, err = schema.Load()
	}
	if err != nil {
		at := diag.At(diag.Pos{File: files.CubeFile(cmp.Or(opts.MLCube, "."))}).Field("schema")
		return nil, diag.Diagnostics{diag.Errorf(diag.Internal, at, "loading the embedded schemas: %v", err)}
	}
	var p *ir.Pipeline
	var diags diag.Diagnostics
	s.Do(func(sc *schema.Context) { p, diags = compile(sc, files, opts) })
	return p, diags
}

// compile is Compile in the schema's Context sc, which it holds until
// the pipeline is lowered.
func compile(sc *schema.Context, files *source.Files, opts Options) (*ir.Pipeline, diag.Diagnostics) {
	ps, plat, diags := spec.Read(sc, files, opts.MLCube, opts.Platform, opts.Task)
	diags = append(diags, spec.PickSteps(ps, opts.Steps)...)
	more, meant := spec.SetPaths(ps, opts.Paths)
	diags = append(diags, more...)
	values, more := spec.ReadValues(sc, files, opts.Values, opts.Set)
	diags = append(diags, more...)
	// A NAME=VALUE argument meant for a param fills it before -f and
	// --set do: its error is the one the mistake gets.
	values = append(meant, values...)
	if opts.Namespace != "" && plat != nil {
		diags = append(diags, namespaceFlag(opts.Namespace)...)
		plat.Namespace = opts.Namespace
	}
	if ps != nil {
		diags = append(diags, spec.ApplyValues(ps, values, opts.SharedValues)...)
		ps.Schedule = spec.OverrideSchedule(ps.Schedule, opts.Schedule)
	}
	var p *ir.Pipeline
	if ps != nil && !ps.Incomplete {
		// Lowering runs on what was read even when reading found errors:
		// the schema's refusals leave out only the fields they are about
		// (spec's salvage), so that every problem is reported in one run.
		// It is total, so the checks of the lowered pipeline run whatever
		// it found.
		p, more = lower.Lower(ps, plat, opts.NeedValues)
		more = append(more, passes.Run(p)...)
		if writesResults(p) {
			p.Provenance = &ir.Provenance{Specs: files.Digest(), Version: cmp.Or(opts.Version, "devel"),
				Commit: cmp.Or(opts.Commit, "unknown commit")}
		}
		more = append(more, verify.Verify(p)...)
		if plat != nil && len(plat.Cut) > 0 {
			more = keepCut(more, plat.File, plat.Cut)
		}
		diags = append(diags, more...)
	}
	if diags.HasErrors() {
		// A refused run uses nothing: what it would leave unused is no
		// news beside what refused it.
		p = nil
		diags = slices.DeleteFunc(diags, func(d diag.Diagnostic) bool {
			return d.Code.SaysSettingUnused() || d.Code == diag.ParamReachesNothing
		})
	}
	return p, diags.Sorted()
}

// keepCut is, of the checks after the schema, those a platform file read
// without its wrong values (its fields cut) can be trusted with: those
// about the platform file, but for those about a cut field, below one or
// about a mapping that holds one, and those that say something is absent
// (absentCodes: an objectStore cut is not "no object store"). The others
// may be the cut's consequences, and the run has errors already.
func keepCut(ds diag.Diagnostics, file string, cut []string) diag.Diagnostics {
	return slices.DeleteFunc(ds, func(d diag.Diagnostic) bool {
		if d.Pos.File != file || d.Field == "" || slices.Contains(absentCodes, d.Code) {
			return true
		}
		return slices.ContainsFunc(cut, func(c string) bool { return related(d.Field, c) })
	})
}

// absentCodes are the errors that say a value is absent, which a value
// cut for being wrong is in the copy read.
var absentCodes = []diag.Code{diag.NoObjectStore, diag.NoImage, diag.NeedsClaim, diag.MissingField, diag.MissingFile}

// related reports whether field a is field b, or one holds the other.
func related(a, b string) bool { return holds(a, b) || holds(b, a) }

// holds reports whether field is top or below it.
func holds(top, field string) bool {
	return field == top || strings.HasPrefix(field, top+".") || strings.HasPrefix(field, top+"[")
}

// CheckNamespace says why ns, a --namespace value, is not a Kubernetes
// namespace; nil when it is one.
func CheckNamespace(ns string) error { return namespace(ns) }

// Setting is one --set NAME=VALUE.
type Setting = spec.Setting

// ScheduleOptions are the --schedule, --timezone and --concurrency-policy
// flags; each one set replaces the pipeline file's.
type ScheduleOptions = spec.ScheduleOptions

// Disk is the machine's own files, the file system Compile reads when
// Options.FS is nil (source.Disk): lint reads through it, wrapped, to
// note which files a compilation looked at.
var Disk = source.Disk

// StdinName names a spec read from standard input in paths and messages.
const StdinName = source.StdinName

// WithStdin is fsys (the machine's files when nil) with data, a spec read
// from standard input, as the file StdinName.
func WithStdin(fsys fs.FS, data []byte) fs.FS { return source.WithStdin(fsys, data) }

// writesResults says whether p uploads final results to an S3 bucket,
// beside which it writes its provenance.
func writesResults(p *ir.Pipeline) bool {
	if p.ObjectStore == nil || p.ObjectStore.S3 == nil {
		return false
	}
	for _, s := range p.Steps {
		for _, u := range s.Uploads {
			if u.Final {
				return true
			}
		}
	}
	return false
}
