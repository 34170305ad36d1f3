package driver

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/mlcube-compile/mlcube-compile/backends/argo"
	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/backends/job"
	"github.com/mlcube-compile/mlcube-compile/backends/tekton"
	"github.com/mlcube-compile/mlcube-compile/compiler"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// engines are the backends, in the order help lists them.
var engines = []emit.Engine{argo.Engine{}, tekton.Engine{}, job.Engine{}}

// Backends are the --backend values, in the order help lists them.
func Backends() []string {
	names := make([]string, len(engines))
	for i, e := range engines {
		names[i] = e.Name()
	}
	return names
}

// engine finds a backend by name.
func engine(name string) (emit.Engine, bool) {
	for _, e := range engines {
		if e.Name() == name {
			return e, true
		}
	}
	return nil, false
}

// Kinds are the --kind values of the backends that emit more than one
// kind, the default first, as "backend: kind, kind; backend: kind, kind".
func Kinds() string {
	var out []string
	for _, e := range engines {
		if len(e.Kinds()) > 1 {
			out = append(out, e.Name()+": "+strings.Join(e.Kinds(), ", "))
		}
	}
	return strings.Join(out, "; ")
}

// KindNames are the --kind values of backend, or of every backend when
// it is "" or none, for completion.
func KindNames(backend string) []string {
	var out []string
	if e, ok := engine(backend); ok {
		return e.Kinds()
	}
	for _, e := range engines {
		if len(e.Kinds()) > 1 {
			out = append(out, e.Kinds()...)
		}
	}
	return out
}

// Request is one compilation: the specs, the backend, and what to ask of
// it.
type Request struct {
	Compiler compiler.Options
	Backend  string
	Emit     emit.Options
}

// prepare checks the backend, the kind and the schedule flags together,
// and says in the compiler's options why params need values now, if they
// do; a --namespace that is no namespace is refused here, before the
// specs are read. Its errors are UsageErrors.
func (r *Request) prepare() (emit.Engine, error) {
	e, ok := engine(r.Backend)
	if !ok {
		names := append(Backends(), AllBackends)
		return nil, UsageError{fmt.Errorf("unknown backend %q (backends: %s)%s", r.Backend, strings.Join(names, ", "), diag.Suggest(r.Backend, names))}
	}
	kinds := e.Kinds()
	switch {
	case r.Emit.Kind != "" && len(kinds) == 1:
		return nil, UsageError{fmt.Errorf("--kind is for %s; %s emits one kind", multiKindBackends(), r.Backend)}
	case r.Emit.Kind != "" && !slices.Contains(kinds, r.Emit.Kind):
		return nil, UsageError{fmt.Errorf("unknown --kind %q (kinds: %s)%s", r.Emit.Kind, strings.Join(kinds, ", "), cmp.Or(kindOwner(r.Emit.Kind), diag.Suggest(r.Emit.Kind, kinds)))}
	}
	if ns := r.Compiler.Namespace; ns != "" {
		if err := compiler.CheckNamespace(ns); err != nil {
			return nil, UsageError{fmt.Errorf("--namespace %w", err)}
		}
	}
	s := r.Compiler.Schedule
	if !r.scheduled() && (len(s.Cron) > 0 || s.Timezone != "" || s.ConcurrencyPolicy != "") {
		return nil, UsageError{fmt.Errorf("--schedule, --timezone and --concurrency-policy go with --kind %s", argo.KindCronWorkflow)}
	}
	r.Compiler.NeedValues = needValues(r.Backend, r.Emit.Kind)
	return e, nil
}

// scheduled reports whether the request emits a run that starts itself on
// a schedule.
func (r *Request) scheduled() bool {
	return r.Backend == argo.Engine{}.Name() && r.Emit.Kind == string(argo.KindCronWorkflow)
}

// multiKindBackends names the backends --kind is for: "--backend argo".
func multiKindBackends() string {
	var out []string
	for _, e := range engines {
		if len(e.Kinds()) > 1 {
			out = append(out, "--backend "+e.Name())
		}
	}
	return strings.Join(out, " or ")
}

// kindOwner says which other backend emits kind, if one does.
func kindOwner(kind string) string {
	for _, e := range engines {
		if len(e.Kinds()) > 1 && slices.Contains(e.Kinds(), kind) {
			return fmt.Sprintf("; %s is for --backend %s", kind, e.Name())
		}
	}
	return ""
}

// needValues says why every param needs a value at compile time for what
// the request emits, or nothing when params can be passed at run time.
func needValues(backend, kind string) string {
	switch {
	case backend == job.Engine{}.Name():
		return "a Job has no run-time parameters"
	case backend == argo.Engine{}.Name() && kind == string(argo.KindCronWorkflow):
		return "a CronWorkflow starts its runs itself, with no one to pass -p"
	}
	return ""
}
