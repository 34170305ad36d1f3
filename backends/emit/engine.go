package emit

import (
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// Engine turns a compiled pipeline into the objects one workflow engine
// runs, each already checked by that engine's own validator.
type Engine interface {
	// Name is the --backend value that selects the engine.
	Name() string
	// Kinds are the kinds of run object the engine can emit, the default
	// first; --kind picks one.
	Kinds() []string
	// Emit builds the objects for p. An error is diag.Diagnostics (at
	// what the spec wrote), a *SpecError or a *TooLargeError when the
	// spec asks for what the engine cannot emit, and a bug in
	// mlcube-compile otherwise.
	Emit(p *ir.Pipeline, opts Options) (Result, error)
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
	// Run is the object that runs the pipeline: a Workflow, a
	// PipelineRun, a Job.
	Run any
	// Warnings are about what the engine cannot express, each at what it
	// is about.
	Warnings diag.Diagnostics
}

// Objects are the result's objects in the order they are applied: the
// ConfigMap the run reads, the RBAC, then the run, which needs both.
func (r Result) Objects() []any {
	var objs []any
	if r.ConfigMap != nil {
		objs = append(objs, r.ConfigMap)
	}
	objs = append(objs, r.RBAC...)
	return append(objs, r.Run)
}
