package driver

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/backends/engines"
	"github.com/mlcube-compile/mlcube-compile/compiler"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// fakeEngine returns res and err for every pipeline, and accepts none
// when it has shape; its kinds after the first, if it has more, start
// their runs on a schedule.
type fakeEngine struct {
	name  string
	res   emit.Result
	err   error
	kinds []string
	shape diag.Diagnostics
}

func (f fakeEngine) Name() string { return f.name }
func (f fakeEngine) Kinds() []emit.Kind {
	if f.kinds == nil {
		return []emit.Kind{{Name: f.name}}
	}
	out := []emit.Kind{{Name: f.kinds[0]}}
	for _, k := range f.kinds[1:] {
		out = append(out, emit.Kind{Name: k, Needs: emit.Needs{Schedule: true, Values: "it runs by itself"}})
	}
	return out
}
func (f fakeEngine) Accepts(*ir.Pipeline, string) diag.Diagnostics        { return f.shape }
func (f fakeEngine) Emit(*ir.Pipeline, emit.Options) (emit.Result, error) { return f.res, f.err }

// withEngines runs the test with extra engines registered.
func withEngines(t *testing.T, extra ...emit.Engine) {
	saved := engines.All
	engines.All = append(append([]emit.Engine(nil), engines.All...), extra...)
	t.Cleanup(func() { engines.All = saved })
}

// An engine's refusals come back at the positions the engine gave them;
// any other failure is an InternalError that names the inputs and asks
// for a report. Check prefixes each refusal with the backend's name, and
// leaves out an engine that does not run pipelines of this shape.
func TestEmitMapsRefusals(t *testing.T) {
	at := diag.At(diag.Pos{File: "pipeline.yaml", Line: 4, Col: 3}).Field("steps")
	refused := diag.Diagnostics{diag.Errorf(diag.EngineCannotRun, at, "one step only")}
	withEngines(t,
		fakeEngine{name: "broken", err: errors.New("the validator says no")},
		fakeEngine{name: "refusing", res: emit.Result{Refused: refused}},
		fakeEngine{name: "shape", res: emit.Result{Refused: refused}, shape: refused},
	)
	p := &ir.Pipeline{Source: "pipeline.yaml"}
	_, err := Emit(p, Request{Backend: "broken"})
	var internal InternalError
	if !errors.As(err, &internal) || !strings.Contains(err.Error(), "please report") {
		t.Errorf("broken: %v, want an InternalError asking for a report", err)
	}
	for _, backend := range []string{"refusing", "shape"} {
		_, err := Emit(p, Request{Backend: backend})
		var diags diag.Diagnostics
		if !errors.As(err, &diags) || len(diags) != 1 ||
			diags[0].String() != "pipeline.yaml:4:3: steps: "+backend+": one step only [MLC650]" {
			t.Errorf("%s: %#v, want the engine's refusal where it put it", backend, err)
		}
	}
	var got []string
	for _, d := range checkEngines(p, []string{"broken", "refusing", "shape"}) {
		got = append(got, d.String())
	}
	want := []string{
		"pipeline.yaml: --backend: broken: " + InternalError{Input: "pipeline.yaml",
			Err: errors.New("the validator says no")}.Error() + " [MLC751]",
		"pipeline.yaml:4:3: steps: refusing: one step only [MLC650]",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Check (-want +got):\n%s", diff)
	}
}

// An engine that finds another fault before the shape it does not accept
// reports that fault, as it did; --backend all leaves it out for the
// shape, which its warning says.
func TestShapeFoundLate(t *testing.T) {
	at := diag.At(diag.Pos{File: "pipeline.yaml", Line: 4, Col: 3})
	first := diag.Diagnostics{diag.Errorf(diag.EngineCannotRun, at.Field("platform"), "first fault")}
	shape := diag.Diagnostics{diag.Errorf(diag.EngineCannotRun, at.Field("steps"), "one step only")}
	withEngines(t, fakeEngine{name: "late", res: emit.Result{Refused: first}, shape: shape})
	_, err := Emit(&ir.Pipeline{Source: "pipeline.yaml"}, Request{Backend: "late"})
	var se shapeError
	if !errors.As(err, &se) || err.Error() != "pipeline.yaml:4:3: platform: late: first fault [MLC650]" ||
		len(se.shape) != 1 || se.shape[0].Message != "one step only" || se.shape[0].Engine != "late" {
		t.Errorf("%#v, want Emit's refusal, left out for Accepts' shape", err)
	}
}

// What a kind needs comes from its engine: the schedule flags go with a
// kind that starts its runs on a schedule, which then needs every value,
// and lint checks a pipeline with a schedule as that kind too.
func TestEngineNeeds(t *testing.T) {
	withEngines(t, fakeEngine{name: "timer", kinds: []string{"once", "often"}})
	sched := compiler.Options{Schedule: compiler.ScheduleOptions{Cron: []string{"0 2 * * *"}}}
	req := Request{Backend: "timer", Compiler: sched}
	_, err := req.prepare()
	var usage UsageError
	if !errors.As(err, &usage) || !strings.Contains(err.Error(), "--backend timer --kind often") {
		t.Errorf("timer, default kind, with --schedule: %v, want a usage error naming --backend timer --kind often", err)
	}
	req = Request{Backend: "timer", Compiler: sched, Emit: emit.Options{Kind: "often"}}
	if _, err := req.prepare(); err != nil || req.Compiler.NeedValues != "it runs by itself" {
		t.Errorf("timer --kind often: %v, NeedValues %q", err, req.Compiler.NeedValues)
	}
	var kinds []string
	for _, tg := range checkTargets(&ir.Pipeline{Schedule: &ir.Schedule{Cron: []string{"0 2 * * *"}}}, []string{"timer"}) {
		kinds = append(kinds, tg.opts.Kind)
	}
	if diff := cmp.Diff([]string{"", "often"}, kinds); diff != "" {
		t.Errorf("lint's kinds of timer for a scheduled pipeline (-want +got):\n%s", diff)
	}
	if got := checkTargets(&ir.Pipeline{}, []string{"timer"}); len(got) != 1 {
		t.Errorf("lint's kinds of timer for an unscheduled pipeline: %d, want the default alone", len(got))
	}
}

// The backend, --kind and the schedule flags are checked together.
func TestRequestsThatCannotBeMade(t *testing.T) {
	for _, c := range []struct {
		req  Request
		want string
	}{
		{Request{Backend: "nomad"}, `unknown backend "nomad" (backends: argo, tekton, job, all)`},
		{Request{Backend: "job", Emit: emit.Options{Kind: "workflow"}},
			"--kind is for --backend argo or --backend tekton; job emits one kind"},
		{Request{Backend: "tekton", Emit: emit.Options{Kind: "workflow"}},
			`unknown --kind "workflow" (kinds: pipelinerun, pipeline); workflow is for --backend argo`},
		{Request{Backend: "argo", Emit: emit.Options{Kind: "pipeline"}},
			`unknown --kind "pipeline" (kinds: workflow, workflowtemplate, cronworkflow); pipeline is for --backend tekton`},
		{Request{Backend: "argoo"}, `unknown backend "argoo" (backends: argo, tekton, job, all); did you mean "argo"?`},
		{Request{Backend: "argo", Emit: emit.Options{Kind: "cron"}},
			`unknown --kind "cron" (kinds: workflow, workflowtemplate, cronworkflow)`},
		{Request{Backend: "tekton", Emit: emit.Options{Kind: "pipline"}},
			`unknown --kind "pipline" (kinds: pipelinerun, pipeline); did you mean "pipeline"?`},
		{Request{Backend: "argo", Emit: emit.Options{Kind: "WorkFlow"}},
			`unknown --kind "WorkFlow" (kinds: workflow, workflowtemplate, cronworkflow); did you mean "workflow"?`},
		{Request{Backend: "argo", Compiler: compiler.Options{Namespace: "Team_B"}},
			`--namespace "Team_B" is not a Kubernetes namespace: a lowercase RFC 1123 label must consist of lower case ` +
				`alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or ` +
				`'123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`},
	} {
		_, err := c.req.prepare()
		var usage UsageError
		if !errors.As(err, &usage) || err.Error() != c.want {
			t.Errorf("%+v: %v, want the usage error %q", c.req, err, c.want)
		}
	}
	req := Request{Backend: "job"}
	if _, err := req.prepare(); err != nil || req.Compiler.NeedValues == "" {
		t.Errorf("job: %v, NeedValues %q: a Job needs every param's value now", err, req.Compiler.NeedValues)
	}
}

// countingFS counts the times each file is opened.
type countingFS struct {
	fs.FS
	opened map[string]int
}

func (c countingFS) Open(name string) (fs.File, error) {
	c.opened[name]++
	return c.FS.Open(name)
}

func (c countingFS) Stat(name string) (fs.FileInfo, error) { return fs.Stat(c.FS, name) }

// The command reads each spec file once: pairing, the --step check, the
// compile for every backend, the silencing and the -o check of what was
// read all read the workspace's bytes.
func TestEachReadsEveryFileOnce(t *testing.T) {
	fsys := countingFS{os.DirFS("../examples/two-cube-pipeline"), map[string]int{}}
	w := compiler.Load(compiler.Options{Task: "pipeline.yaml", FS: fsys, Set: []compiler.Setting{{Name: "dataset",
		Value: "d"}}})
	w.Pair()
	if steps, _ := w.Steps(); len(steps) == 0 {
		t.Fatal("no steps")
	}
	req := Request{Compiler: w.Options(), Workspace: w}
	if _, _, err := Each(req); err != nil {
		t.Fatal(err)
	}
	if len(w.Files()) < 3 {
		t.Errorf("the workspace read %v", w.Files())
	}
	for name, n := range fsys.opened {
		if n > 1 {
			t.Errorf("%s opened %d times", name, n)
		}
	}
}
