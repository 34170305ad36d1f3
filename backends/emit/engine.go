package emit

import (
	"errors"
	"slices"

	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// Engine turns a compiled pipeline into the objects one workflow engine
// runs, each already checked by that engine's own validator. What the
// driver must know of an engine to check a request and run it, the
// engine says here: the driver names none.
type Engine interface {
	// Name is the --backend value that selects the engine.
	Name() string
	// Kinds are the kinds of run object the engine can emit, the default
	// first, each with what emitting it asks for; --kind picks one by its
	// name.
	Kinds() []Kind
	// Accepts says whether the engine runs pipelines of p's shape as kind
	// ("" for the default): nil when it does, else why not, as refusals
	// at what the spec or flag wrote (RefuseShape). It emits nothing and
	// changes nothing: lint and --backend all leave out an engine that
	// does not accept a pipeline, rather than report it.
	Accepts(p *ir.Pipeline, kind string) diag.Diagnostics
	// Emit builds the objects for p. The spec's faults that keep the
	// engine from emitting it are the result's Refused, each at what the
	// spec (or the flag) wrote; an error is a bug in mlcube-compile. It
	// refuses every pipeline Accepts refuses, with Accepts' refusals
	// unless it finds another fault first.
	Emit(p *ir.Pipeline, opts Options) (Result, error)
}

// Kind is one kind of run object an engine emits.
type Kind struct {
	// Name is the --kind value.
	Name string
	// Needs is what emitting the kind asks of the compiler and of the
	// command line.
	Needs
}

// KindNames are the names of e's kinds, the default first.
func KindNames(e Engine) []string {
	kinds := e.Kinds()
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = k.Name
	}
	return names
}

// KindOf is e's kind of that name, its default for ""; false when e
// emits no kind of that name.
func KindOf(e Engine, name string) (Kind, bool) {
	kinds := e.Kinds()
	if name == "" && len(kinds) > 0 {
		return kinds[0], true
	}
	i := slices.IndexFunc(kinds, func(k Kind) bool { return k.Name == name })
	if i < 0 {
		return Kind{}, false
	}
	return kinds[i], true
}

// Needs is what one kind of an engine's output asks for.
type Needs struct {
	// Values says why every param needs a value at compile time; empty
	// when params can be passed when the run starts.
	Values string
	// Schedule is set for a kind that starts its runs itself, on the
	// pipeline's schedule: the schedule flags go with it alone, and lint
	// checks a pipeline that has a schedule as this kind too.
	Schedule bool
}

// Options are what a user can ask of every engine; the zero value is the
// default output.
type Options struct {
	// RBAC asks for the ServiceAccount, Role and RoleBinding the run
	// needs, applied before the run.
	RBAC bool
	// Kind is one of the engine's Kinds; empty means the first.
	Kind string
}

// Result is what an engine emits for one pipeline.
type Result struct {
	// RBAC is the ServiceAccount, Role and RoleBinding the run needs,
	// when Options.RBAC asked for them.
	RBAC []any
	// ConfigMap holds the pipeline's configs when the run reads them
	// from a ConfigMap it does not create itself; nil otherwise.
	ConfigMap any
	// ResourceClaimTemplates are what the run's pods claim their GPUs
	// from (Dynamic Resource Allocation), when the run does not create
	// them itself.
	ResourceClaimTemplates []any
	// NetworkPolicies isolate the pods of steps that run without network
	// (MedPerf's containers); applied before the run, whose pods they
	// select by label.
	NetworkPolicies []any
	// Run is the object that runs the pipeline: a Workflow, a
	// PipelineRun, a Job. It is nil when the engine refused the spec.
	Run any
	// Warnings are about what the engine cannot express, each at what it
	// is about.
	Warnings diag.Diagnostics
	// Refused are the errors that keep the engine from emitting the spec,
	// each at what the spec or a flag wrote.
	Refused diag.Diagnostics
}

// Objects are the result's objects in the order they are applied: the
// ConfigMap the run reads, the RBAC, the ResourceClaimTemplates, the
// NetworkPolicies, then the run, which needs them all.
func (r Result) Objects() []any {
	var objs []any
	if r.ConfigMap != nil {
		objs = append(objs, r.ConfigMap)
	}
	objs = append(objs, r.RBAC...)
	objs = append(objs, r.ResourceClaimTemplates...)
	objs = append(objs, r.NetworkPolicies...)
	return append(objs, r.Run)
}

// Err is the result's refusals as an error, nil when there are none.
func (r Result) Err() error {
	if len(r.Refused) == 0 {
		return nil
	}
	return r.Refused
}

// Emit is e's Emit, with e named as the engine of every warning and
// refusal it returns (diag.Diagnostic.Engine): the engine's code never
// names itself in a message.
func Emit(e Engine, p *ir.Pipeline, opts Options) (Result, error) {
	res, err := e.Emit(p, opts)
	res.Warnings, res.Refused = named(e, res.Warnings), named(e, res.Refused)
	return res, err
}

// Accepts is e's Accepts, with e named as the engine of every refusal,
// as Emit names it.
func Accepts(e Engine, p *ir.Pipeline, kind string) diag.Diagnostics {
	return named(e, e.Accepts(p, kind))
}

// named is a copy of ds, each naming e as its engine.
func named(e Engine, ds diag.Diagnostics) diag.Diagnostics {
	if ds == nil {
		return nil
	}
	out := slices.Clone(ds)
	for i := range out {
		out[i].Engine = e.Name()
	}
	return out
}

// Refuse is the error an engine's code returns for a spec it cannot
// emit: a diagnostic of kind code at what the spec or flag at wrote.
// Settle moves it into the result.
func Refuse(code diag.Code, at diag.Loc, format string, args ...any) error {
	return diag.Diagnostics{diag.Errorf(code, at, format, args...)}
}

// RefuseShape is the refusal of a pipeline of a shape the engine does not
// run at all, such as several steps for the job engine: an
// EngineCannotRun, at what the spec or flag at wrote. Accepts returns it,
// and Emit when it finds it.
func RefuseShape(at diag.Loc, format string, args ...any) diag.Diagnostics {
	return diag.Diagnostics{diag.Errorf(diag.EngineCannotRun, at, format, args...)}
}

// Settle is what an engine's Emit returns: res when err is nil, else
// err's refusals (the diag.Diagnostics that Refuse and RefuseShape
// return, or any other at what the spec wrote) as the result's Refused,
// with no objects and no warnings; any other error is returned as the bug
// it is.
func Settle(res Result, err error) (Result, error) {
	if err == nil {
		return res, nil
	}
	var refused diag.Diagnostics
	if errors.As(err, &refused) {
		return Result{Refused: refused}, nil
	}
	return Result{}, err
}
