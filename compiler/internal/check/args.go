package check

import (
	"path"
	"strings"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/spec"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// containerArgs checks what becomes the step's command and arguments:
// the task's entrypoint, the step's overrides of the task's parameters
// and the claims they are on, and the step's own args.
func (c *checker) containerArgs(st *spec.Step) {
	t := st.Task
	if t.Entrypoint != "" {
		if _, err := spec.SplitWords(t.Entrypoint); err != nil {
			c.errorf(t.At().Field("entrypoint"), "%v", err)
		}
	}
	for _, p := range t.Inputs {
		c.paramArg(st, p, "inputs", st.Inputs[p.Name])
	}
	for _, p := range t.Outputs {
		c.paramArg(st, p, "outputs", st.Outputs[p.Name])
	}
	for i, a := range st.Args {
		at := st.Loc.Field("args").Index(i)
		c.diags = append(c.diags, spec.CheckArgCredential(a, at)...)
		c.text(a, at)
	}
}

// paramArg checks a task's parameter of kind (inputs or outputs) with
// the step's override, if it has one: the path lowering puts into the
// argument, and the claim it is on.
func (c *checker) paramArg(st *spec.Step, p *spec.Param, kind, override string) {
	raw := p.Path
	if override != "" {
		raw = override
	}
	check := func(s string) {
		if override != "" {
			c.text(s, st.Loc.Field(kind).Field(p.Name))
		}
	}
	if strings.HasPrefix(raw, "/") {
		check(raw)
		return
	}
	if p.Claim != "" {
		c.claim(p)
	}
	if rel := path.Clean(raw); rel != "." {
		check(rel)
	}
}

// text checks a pipeline-file string whose ${params.X} references
// become the engine's own references: each names a param, the step may
// take references, and nothing before one joins with it into engine
// syntax.
func (c *checker) text(s string, at diag.Loc) {
	last := 0
	for _, m := range spec.AnyRef.FindAllStringSubmatchIndex(s, -1) {
		ref := strings.TrimSpace(s[m[2]:m[3]])
		_, problem := spec.ParamOf(ref, c.params)
		switch {
		case problem != "":
			c.errorf(at, "%s", problem)
			continue
		case c.noParams != "":
			c.errorf(at, "${%s}: this step runs as %s, whose manifest the engine fills in without escaping, so a parameter's value could rewrite it; write the value itself", ref, c.noParams)
			continue
		}
		if before := s[last:m[0]]; strings.HasSuffix(before, "$") || strings.HasSuffix(before, "{") {
			c.errorf(at, "%q right before ${%s} would join with its value into engine syntax such as $(…) or {{…}}; put something else between them", before[len(before)-1:], ref)
			continue
		}
		last = m[1]
	}
}
