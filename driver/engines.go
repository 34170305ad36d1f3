package driver

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/backends/engines"
	"github.com/mlcube-compile/mlcube-compile/compiler"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// Backends are the --backend values, in the order help lists them.
func Backends() []string {
	names := make([]string, len(engines.All))
	for i, e := range engines.All {
		names[i] = e.Name()
	}
	return names
}

// otherEngines says each platform section named for an engine (such as
// tekton:, what that engine's cluster is set to) that the run compiled
// for backend, another engine, applies to nothing. Lint, which compiles
// for every engine, does not say it: the section is for one of them.
func otherEngines(p *ir.Pipeline, backend string) diag.Diagnostics {
	var out diag.Diagnostics
	for _, e := range engines.All {
		at := p.Platform.Field(e.Name())
		if e.Name() != backend && at.Written() {
			d := diag.Warnf(diag.PlatformSettingUnused, at,
				"only the %s engine reads %s: (what its cluster is set to); this %s run applies it to nothing "+
					"(--backend %s reads it)", e.Name(), e.Name(), backend, e.Name())
			d.Engine = backend
			out = append(out, d)
		}
	}
	return out
}

// engine finds a backend by name.
func engine(name string) (emit.Engine, bool) { return engines.Find(name) }

// Kinds are the --kind values of the backends that emit more than one
// kind, the default first, as "backend: kind, kind; backend: kind, kind".
func Kinds() string {
	var out []string
	for _, e := range engines.All {
		if kinds := emit.KindNames(e); len(kinds) > 1 {
			out = append(out, e.Name()+": "+strings.Join(kinds, ", "))
		}
	}
	return strings.Join(out, "; ")
}

// KindNames are the --kind values of backend, or of every backend when
// it is "" or none, for completion.
func KindNames(backend string) []string {
	var out []string
	if e, ok := engine(backend); ok {
		return emit.KindNames(e)
	}
	for _, e := range engines.All {
		if kinds := emit.KindNames(e); len(kinds) > 1 {
			out = append(out, kinds...)
		}
	}
	return out
}

// Request is one compilation: the specs, the backend, and what to ask of
// it.
type Request struct {
	Compiler compiler.Options
	// Workspace, when set, holds Compiler's files as the command line
	// read them (pairing them, checking --step): the compile reads them
	// again from it, not from the disk.
	Workspace *compiler.Workspace
	Backend   string
	Emit      emit.Options
	// Format is how the objects are written: yaml (also when empty) or
	// json, one of OutputFormats.
	Format string
	// everyBackend says the compile is one of Each's, which compiles for
	// every engine: no platform section is another engine's alone.
	everyBackend bool
}

// OutputFormats are the forms the objects are written in, the default
// first: a YAML stream, or JSON (one object, or a v1 List of several).
var OutputFormats = []string{"yaml", "json"}

// workspace is where the request's specs are read: its Workspace asked
// about Compiler, else a new one.
func (r *Request) workspace() *compiler.Workspace {
	if r.Workspace != nil {
		return r.Workspace.For(r.Compiler)
	}
	return compiler.Load(r.Compiler)
}

// prepare checks the backend, the kind and the schedule flags together,
// and says in the compiler's options why params need values now, if they
// do; a --namespace that is no namespace is refused here, before the
// specs are read. Its errors are UsageErrors.
func (r *Request) prepare() (emit.Engine, error) {
	if r.Format != "" && !slices.Contains(OutputFormats, r.Format) {
		return nil, UsageError{fmt.Errorf("unknown --format %q (formats: %s)%s", r.Format, strings.Join(OutputFormats, ", "),
			diag.Suggest(r.Format, OutputFormats))}
	}
	e, ok := engine(r.Backend)
	if !ok {
		names := append(Backends(), AllBackends)
		return nil, UsageError{fmt.Errorf("unknown backend %q (backends: %s)%s", r.Backend, strings.Join(names, ", "),
			diag.Suggest(r.Backend, names))}
	}
	kinds := emit.KindNames(e)
	switch {
	case r.Emit.Kind != "" && len(kinds) == 1:
		return nil, UsageError{fmt.Errorf("--kind is for %s; %s emits one kind", multiKindBackends(), r.Backend)}
	case r.Emit.Kind != "" && !slices.Contains(kinds, r.Emit.Kind):
		return nil, UsageError{fmt.Errorf("unknown --kind %q (kinds: %s)%s", r.Emit.Kind, strings.Join(kinds, ", "),
			cmp.Or(kindOwner(r.Emit.Kind), diag.Suggest(r.Emit.Kind, kinds)))}
	}
	if ns := r.Compiler.Namespace; ns != "" {
		if err := compiler.CheckNamespace(ns); err != nil {
			return nil, UsageError{fmt.Errorf("--namespace %w", err)}
		}
	}
	needs := kindOf(e, r.Emit.Kind).Needs
	s := r.Compiler.Schedule
	if !needs.Schedule && (len(s.Cron) > 0 || s.Timezone != "" || s.ConcurrencyPolicy != "") {
		return nil, UsageError{fmt.Errorf("--schedule, --timezone and --concurrency-policy go with %s", scheduledKinds())}
	}
	r.Compiler.NeedValues = needs.Values
	return e, nil
}

// scheduled reports whether the request emits a run that starts itself on
// a schedule.
func (r *Request) scheduled() bool {
	e, ok := engine(r.Backend)
	return ok && kindOf(e, r.Emit.Kind).Schedule
}

// kindOf is e's kind of that name, its default for "": the zero Kind,
// which needs nothing, when e emits none of that name (prepare refuses
// such a request).
func kindOf(e emit.Engine, name string) emit.Kind {
	k, _ := emit.KindOf(e, name)
	return k
}

// scheduledKinds names the kinds that start their runs on a schedule, as
// flags: "--backend argo --kind cronworkflow".
func scheduledKinds() string {
	var out []string
	for _, e := range engines.All {
		for _, k := range e.Kinds() {
			if k.Schedule {
				out = append(out, "--backend "+e.Name()+" --kind "+k.Name)
			}
		}
	}
	return strings.Join(out, " or ")
}

// multiKindBackends names the backends --kind is for: "--backend argo".
func multiKindBackends() string {
	var out []string
	for _, e := range engines.All {
		if len(e.Kinds()) > 1 {
			out = append(out, "--backend "+e.Name())
		}
	}
	return strings.Join(out, " or ")
}

// kindOwner says which other backend emits kind, if one does.
func kindOwner(kind string) string {
	for _, e := range engines.All {
		if kinds := emit.KindNames(e); len(kinds) > 1 && slices.Contains(kinds, kind) {
			return fmt.Sprintf("; %s is for --backend %s", kind, e.Name())
		}
	}
	return ""
}
