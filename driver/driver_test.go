package driver

import (
	"errors"
	"strings"
	"testing"

	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/compiler"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// fakeEngine refuses every pipeline with err.
type fakeEngine struct {
	name string
	err  error
}

func (f fakeEngine) Name() string    { return f.name }
func (f fakeEngine) Kinds() []string { return []string{f.name} }
func (f fakeEngine) Emit(*ir.Pipeline, emit.Options) (emit.Result, error) {
	return emit.Result{}, f.err
}

// withEngines runs the test with extra engines registered.
func withEngines(t *testing.T, extra ...emit.Engine) {
	saved := engines
	engines = append(append([]emit.Engine(nil), engines...), extra...)
	t.Cleanup(func() { engines = saved })
}

// An engine's refusal is mapped once: a spec's fault becomes a
// diagnostic at the pipeline file, anything else an InternalError that
// names the inputs and asks for a report.
func TestEmitMapsRefusals(t *testing.T) {
	withEngines(t,
		fakeEngine{"broken", errors.New("the validator says no")},
		fakeEngine{"refusing", &emit.SpecError{Field: "steps", Message: "one step only"}},
		fakeEngine{"large", &emit.TooLargeError{What: "the Job", Size: 2 << 20, Limit: 1 << 20, Rule: "a limit"}},
	)
	p := &ir.Pipeline{Source: "pipeline.yaml"}
	_, err := Emit(p, Request{Backend: "broken"})
	var internal InternalError
	if !errors.As(err, &internal) || !strings.Contains(err.Error(), "please report") {
		t.Errorf("broken: %v, want an InternalError asking for a report", err)
	}
	for backend, field := range map[string]string{"refusing": "steps", "large": "steps"} {
		_, err := Emit(p, Request{Backend: backend})
		var diags diag.Diagnostics
		if !errors.As(err, &diags) || len(diags) != 1 || diags[0].Pos.File != "pipeline.yaml" || diags[0].Field != field {
			t.Errorf("%s: %#v, want one diagnostic at pipeline.yaml, field %s", backend, err, field)
		}
	}
	found := Check(p, nil)
	if len(found) == 0 {
		t.Fatal("Check found nothing")
	}
	brokenFound := false
	for _, d := range found {
		// A bug of ours is at --backend, not at a field named "broken".
		brokenFound = brokenFound || d.Field == "--backend" && strings.HasPrefix(d.Message, "broken: internal error")
		if strings.Contains(d.Message, "please report") && d.Field != "--backend" {
			t.Errorf("Check: %v, want it at --backend", d)
		}
		if d.Field == "steps" && !strings.HasPrefix(d.Message, "refusing: ") && !strings.HasPrefix(d.Message, "large: ") {
			t.Errorf("Check: a refusal without its backend's name: %v", d)
		}
	}
	if !brokenFound {
		t.Errorf("Check: no internal error of broken at --backend in %#v", found)
	}
}

// The backend, --kind and the schedule flags are checked together.
func TestRequestsThatCannotBeMade(t *testing.T) {
	for _, c := range []struct {
		req  Request
		want string
	}{
		{Request{Backend: "nomad"}, `unknown backend "nomad" (backends: argo, tekton, job, all)`},
		{Request{Backend: "job", Emit: emit.Options{Kind: "workflow"}}, "--kind is for --backend argo or --backend tekton; job emits one kind"},
		{Request{Backend: "tekton", Emit: emit.Options{Kind: "workflow"}}, `unknown --kind "workflow" (kinds: pipelinerun, pipeline); workflow is for --backend argo`},
		{Request{Backend: "argo", Emit: emit.Options{Kind: "pipeline"}}, `unknown --kind "pipeline" (kinds: workflow, workflowtemplate, cronworkflow); pipeline is for --backend tekton`},
		{Request{Backend: "argoo"}, `unknown backend "argoo" (backends: argo, tekton, job, all); did you mean "argo"?`},
		{Request{Backend: "argo", Emit: emit.Options{Kind: "cron"}}, `unknown --kind "cron" (kinds: workflow, workflowtemplate, cronworkflow)`},
		{Request{Backend: "tekton", Emit: emit.Options{Kind: "pipline"}}, `unknown --kind "pipline" (kinds: pipelinerun, pipeline); did you mean "pipeline"?`},
		{Request{Backend: "argo", Emit: emit.Options{Kind: "WorkFlow"}}, `unknown --kind "WorkFlow" (kinds: workflow, workflowtemplate, cronworkflow); did you mean "workflow"?`},
		{Request{Backend: "argo", Compiler: compiler.Options{Namespace: "Team_B"}}, `--namespace "Team_B" is not a Kubernetes namespace: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`},
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
