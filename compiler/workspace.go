package compiler

import (
	"github.com/mlcube-compile/mlcube-compile/compiler/internal/source"
	"github.com/mlcube-compile/mlcube-compile/compiler/internal/spec"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
	"github.com/mlcube-compile/mlcube-compile/schema"
)

// Workspace is the specs of one compilation, each file read once: the
// files a command line leaves out (Pair), the cube's tasks, the
// pipeline's steps and params, the compilation itself and the disable
// comments that silence its warnings all read the same bytes. A
// Workspace serves one goroutine.
type Workspace struct {
	opts  Options
	files *source.Files
	sil   *silencer
	// tasks are the cube's task names, once asked for.
	tasks    []string
	tasksSet bool
}

// Load opens the specs opts name; it reads nothing until asked.
func Load(opts Options) *Workspace {
	files := source.New(opts.FS)
	return &Workspace{opts: opts, files: files, sil: newSilencer(files, opts.Disable)}
}

// For is a workspace of opts that reads through w's files: the same
// specs asked another question (other steps, the values a backend
// needs), read no more, and silenced afresh. opts read from w's file
// system; opts.FS is not used.
func (w *Workspace) For(opts Options) *Workspace {
	opts.FS = w.opts.FS
	return &Workspace{opts: opts, files: w.files, sil: newSilencer(w.files, opts.Disable), tasks: w.tasks,
		tasksSet: w.tasksSet && opts.MLCube == w.opts.MLCube}
}

// Options are the files the workspace reads: those Load was given, with
// those Pair filled in.
func (w *Workspace) Options() Options { return w.opts }

// Pair fills in the files the command line left out (the package's Pair
// says how) and says what it chose.
func (w *Workspace) Pair() Pairing {
	p := pair(w.files, w.opts, w.Tasks)
	w.opts = p.Options
	return p
}

// Tasks are the names --task takes for the cube: its tasks, or a 1.0
// cube's run files; nil when it cannot be read, which its compilation
// reports.
func (w *Workspace) Tasks() []string {
	if !w.tasksSet {
		w.withSchema(func(sc *schema.Context) { w.tasks = spec.CubeTaskNames(sc, w.files, w.opts.MLCube) })
		w.tasksSet = true
	}
	return w.tasks
}

// Steps are the steps of the pipeline file the workspace names, as it
// writes their names and in its order, for --step; file says whether it
// names a pipeline file at all, rather than a cube's tasks (a task list,
// a legacy invoke file, or no --task). When what it names cannot be
// read, steps is nil and file true: Compile says why.
func (w *Workspace) Steps() (steps []string, file bool) {
	if w.opts.Task == "" {
		return nil, false
	}
	file = true
	w.readPipeline(func(ps *spec.Pipeline) {
		spec.PickSteps(ps, nil)
		steps, file = ps.FileSteps, !ps.FromCube
	})
	return steps, file
}

// Params are the names of the params of the pipeline file the workspace
// names, in its order, for --set; nil when it names none, or it cannot
// be read.
func (w *Workspace) Params() []string {
	var names []string
	if w.opts.Task == "" {
		return nil
	}
	w.readPipeline(func(ps *spec.Pipeline) {
		for _, p := range ps.Params {
			names = append(names, p.Name)
		}
	})
	return names
}

// readPipeline reads what the workspace names and gives it to use, when
// it can be read; Compile says why when it cannot.
func (w *Workspace) readPipeline(use func(*spec.Pipeline)) {
	w.withSchema(func(sc *schema.Context) {
		if ps, _, _ := spec.Read(sc, w.files, w.opts.MLCube, w.opts.Platform, w.opts.Task); ps != nil {
			use(ps)
		}
	})
}

// withSchema runs use in a Context of the workspace's schema; not at all
// when the embedded schemas cannot be loaded (Compile says so).
func (w *Workspace) withSchema(use func(*schema.Context)) {
	s, err := w.opts.Schema, error(nil)
	if s == nil {
		s, err = schema.Load()
	}
	if err == nil {
		s.Do(use)
	}
}

// Compile reads the specs, checks them and lowers them to the IR. The
// Diagnostics, sorted, hold every error and warning, none silenced; the
// pipeline is nil when there are errors.
func (w *Workspace) Compile() (*ir.Pipeline, diag.Diagnostics) { return compileFiles(w.files, w.opts) }

// Whole reports whether the workspace compiles all that its files say,
// so that a disable comment in them that silences nothing can be judged:
// no --step picks some steps, and --task, when given, is a file, not task
// names, which compile a part of the cube.
func (w *Workspace) Whole() bool {
	return len(w.opts.Steps) == 0 && (w.opts.Task == "" || isTaskFile(w.files, w.opts, w.Tasks))
}

// Silence returns ds without the warnings and notes that --disable or a
// disable comment in the workspace's files silences (the package's
// Silence says how), noting each comment that silenced one.
func (w *Workspace) Silence(ds diag.Diagnostics) diag.Diagnostics { return w.sil.silence(ds) }

// Silenced is what silencing found: every file the workspace read (any
// workspace For made of it included), and the disable comments that
// silenced a warning.
func (w *Workspace) Silenced() Silenced { return w.sil.record() }

// Unused is the warning (MLC107) of each disable comment in the files
// the workspace read that silenced nothing, silenced in turn. skip says
// which codes not to judge.
func (w *Workspace) Unused(skip func(diag.Code) bool) diag.Diagnostics { return w.sil.unused(skip) }

// CheckPlatform checks, through the workspace's files, a platform file
// that no cube or pipeline beside it is compiled with: its schema and
// what decoding it checks.
func (w *Workspace) CheckPlatform(path string) diag.Diagnostics {
	return spec.CheckPlatform(w.files, path)
}

// Files are the files the workspace read (any workspace For made of it
// included), sorted; standard input is none.
func (w *Workspace) Files() []string { return w.files.Read() }

// Classify is the package's Classify of path, read through the
// workspace's files.
func (w *Workspace) Classify(path string) FileKind { return classify(w.files, path) }

// SchemaType is the package's SchemaType of path, read through the
// workspace's files.
func (w *Workspace) SchemaType(path string) string { return schemaType(w.files, path) }
