package compiler

import (
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/mlcube-compile/mlcube-compile/compiler/graph"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

var (
	paramName    = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]*$`)
	dnsSubdomain = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
	envName      = regexp.MustCompile(`^[-._a-zA-Z][-._a-zA-Z0-9]*$`)
	anyRef       = regexp.MustCompile(`\$\{([^{}]*)\}`)
	paramRef     = regexp.MustCompile(`^params\.([A-Za-z][A-Za-z0-9_-]*)$`)
	cubeLabel    = "mlcube-compile/cube"
	taskLabel    = "mlcube-compile/task"
	maxRetries   = 100
)

// lowerSteps lowers every step and returns what each reads and writes.
func (lw *lowering) lowerSteps() ([]*ir.Step, []graph.IO) {
	names := newNameSet()
	var steps []*ir.Step
	var io []graph.IO
	for _, st := range lw.spec.Steps {
		name, ok := names.take(st.Name, st.Name)
		if !ok {
			lw.errorf(st.Loc, "step name %q has no letters or digits to make an engine name from", st.Name)
			continue
		}
		var s *ir.Step
		var sio graph.IO
		if st.Dask != nil {
			s, sio = lw.lowerDaskStep(st, name)
		} else {
			s, sio = lw.lowerStep(st, name)
		}
		steps = append(steps, s)
		io = append(io, sio)
	}
	return steps, io
}

func (lw *lowering) lowerStep(st *stepSpec, name string) (*ir.Step, graph.IO) {
	c, t := st.Cube, st.Task
	s := &ir.Step{
		Name: name, Loc: st.Loc, Cube: c.Name, Task: t.Name,
		Template:        lw.templateName(c, t),
		Image:           lw.image(c),
		ImagePullPolicy: lw.plat.ImagePullPolicy,
		Labels: map[string]string{
			cubeLabel: labelValue(c.Name), taskLabel: labelValue(t.Name),
		},
	}
	if st.MPI != nil {
		lw.noParams = "an MPIJob"
		defer func() { lw.noParams = "" }()
	}
	gpus := c.AcceleratorCount
	if st.Resources.GPU != nil {
		gpus = *st.Resources.GPU
	}
	args := c.CPUArgs
	if gpus > 0 {
		args = c.GPUArgs
	}
	fx, diags := mapDockerArgs(args)
	lw.diags = append(lw.diags, diags...)
	if fx.gpus != nil && *fx.gpus != gpus && gpus > 0 && st.Resources.GPU == nil {
		lw.warnf(args.Loc, "--gpus=%d differs from platform.accelerator_count %d; the step asks for %d", *fx.gpus, gpus, gpus)
	}
	s.ShmSize = fx.shmSize
	s.Resources = lw.resources(st, gpus, fx)
	var sio graph.IO
	s.Command, s.Args, s.Mounts, sio = lw.containerArgs(st)
	s.Env = lw.env(st, fx)
	lw.scheduling(st, s, gpus > 0)
	lw.retryAndTimeout(st, s)
	if st.MPI != nil {
		lw.lowerMPI(st, s)
	}
	return s, sio
}

// templateName names the definition shared by steps that run one cube task.
func (lw *lowering) templateName(c *cube, t *cubeTask) string {
	key := c.File + "\x00" + t.Name
	if n, ok := lw.tmplNames[key]; ok {
		return n
	}
	n, ok := lw.templates.take(key, t.Name, c.Name+"-"+t.Name, "task")
	if !ok {
		n, _ = lw.templates.take(key, "task")
	}
	lw.tmplNames[key] = n
	return n
}

// image picks the image: the platform's, the cube's k8s runner section's,
// then the cube's docker image.
func (lw *lowering) image(c *cube) string {
	for _, img := range []string{lw.plat.Image, c.K8s.Image, c.Image} {
		if img != "" {
			return img
		}
	}
	lw.errorf(diag.At(diag.Pos{File: c.File, Line: 1, Col: 1}).Field("docker").Field("image"), "no image: set docker.image in the cube or image in the platform file")
	return ""
}

// containerArgs builds the command and arguments the MLCube runners use:
// the task name first unless the task has an entrypoint, then one
// --param=path per parameter, then the step's own args.
func (lw *lowering) containerArgs(st *stepSpec) ([]string, []ir.Arg, []ir.Mount, graph.IO) {
	var command []string
	var args []ir.Arg
	t := st.Task
	switch {
	case t.Entrypoint != "":
		words, err := splitWords(t.Entrypoint)
		if err != nil {
			lw.errorf(t.at().Field("entrypoint"), "%v", err)
		}
		command = words
	case !st.Cube.Legacy:
		args = append(args, ir.Arg{Value: ir.Lit(t.Name)})
	}
	mounts := map[string]string{}
	var io graph.IO
	for _, p := range t.Inputs {
		arg, data := lw.paramArg(st, p, "inputs", st.Inputs[p.Name], mounts)
		args, io.Reads = append(args, arg), append(io.Reads, data...)
	}
	for _, p := range t.Outputs {
		arg, data := lw.paramArg(st, p, "outputs", st.Outputs[p.Name], mounts)
		args, io.Writes = append(args, arg), append(io.Writes, data...)
	}
	for i, a := range st.Args {
		at := st.Loc.Field("args").Index(i)
		lw.diags = append(lw.diags, checkArgCredential(a, at)...)
		args = append(args, ir.Arg{Value: lw.text(a, at)})
	}
	var ms []ir.Mount
	for _, v := range sortedKeys(mounts) {
		ms = append(ms, ir.Mount{Volume: v, MountPath: mounts[v]})
	}
	return command, args, ms, io
}

// paramArg is the --param=path argument of a task's parameter of kind
// (inputs or outputs), with the step's override if it has one, and the
// workspace data it names, if any; mounts gains the volume it is on.
func (lw *lowering) paramArg(st *stepSpec, p *param, kind, override string, mounts map[string]string) (ir.Arg, []string) {
	// A legacy binding too is named as a cube's parameter.
	raw, at := p.Path, diag.At(p.Loc.Pos()).Field("tasks").Field(st.Task.Name).Field("parameters").Field(kind).Field(p.Name)
	parse := ir.Lit // a cube's own paths hold no pipeline references
	if override != "" {
		raw, at = override, st.Loc.Field(kind).Field(p.Name)
		parse = func(s string) ir.Text { return lw.text(s, at) }
	}
	arg := ir.Arg{Param: p.Name, Prefix: "--" + p.Name + "="}
	if strings.HasPrefix(raw, "/") {
		lw.warnf(at, "absolute path %q is in the container, not on the workspace volume; steps cannot pass data through it", raw)
		arg.Value = parse(raw)
		return arg, nil
	}
	var volume, root string
	if p.Claim != "" {
		volume, root = lw.claimVolume(p.Claim, diag.At(p.Loc.Pos()).Field("k8s").Field("pvc"))
	} else {
		volume, root = lw.workspace(), lw.mountPath
	}
	mounts[volume] = root
	rel := cleanKeepParams(raw)
	if rel == ".." || strings.HasPrefix(rel, "../") {
		lw.warnf(at, "path %q leaves the workspace; in the container it is %s, outside the volume", raw, path.Join(root, rel))
	}
	arg.Value = ir.Lit(root)
	if rel != "" {
		arg.Value = mergeLiterals(append(ir.Lit(root+"/"), parse(rel)...))
	}
	return arg, []string{graph.Qualify(volume, rel)}
}

// cleanKeepParams cleans a relative path the way path.Clean does.
func cleanKeepParams(p string) string {
	c := path.Clean(p)
	if c == "." {
		return ""
	}
	return c
}

// mergeLiterals joins neighbouring literal pieces.
func mergeLiterals(t ir.Text) ir.Text {
	var out ir.Text
	for _, p := range t {
		if n := len(out); n > 0 && p.Param == "" && out[n-1].Param == "" {
			out[n-1].Literal += p.Literal
			continue
		}
		out = append(out, p)
	}
	return out
}

// text parses a pipeline-file string whose ${params.X} references become
// the engine's own references.
func (lw *lowering) text(s string, at diag.Loc) ir.Text {
	var out ir.Text
	last := 0
	for _, m := range anyRef.FindAllStringSubmatchIndex(s, -1) {
		ref := strings.TrimSpace(s[m[2]:m[3]])
		param, problem := paramOf(ref, lw.params)
		switch {
		case problem != "":
			lw.errorf(at, "%s", problem)
			continue
		case lw.noParams != "":
			lw.errorf(at, "${%s}: this step runs as %s, whose manifest the engine fills in without escaping, so a parameter's value could rewrite it; write the value itself", ref, lw.noParams)
			continue
		}
		if before := s[last:m[0]]; strings.HasSuffix(before, "$") || strings.HasSuffix(before, "{") {
			lw.errorf(at, "%q right before ${%s} would join with its value into engine syntax such as $(…) or {{…}}; put something else between them", before[len(before)-1:], ref)
			continue
		}
		out = append(out, ir.Piece{Literal: s[last:m[0]]}, ir.Piece{Param: param})
		last = m[1]
	}
	out = append(out, ir.Piece{Literal: s[last:]})
	var trimmed ir.Text
	for _, p := range out {
		if p.Param != "" || p.Literal != "" {
			trimmed = append(trimmed, p)
		}
	}
	return mergeLiterals(trimmed)
}

// paramOf returns the param a ${...} reference names, or why it names
// none.
func paramOf(ref string, params map[string]bool) (string, string) {
	pm := paramRef.FindStringSubmatch(ref)
	switch {
	case pm == nil:
		return "", fmt.Sprintf("${%s}: only ${params.NAME} references are allowed here", ref)
	case len(params) == 0:
		return "", fmt.Sprintf("${%s}: the pipeline has no params:", ref)
	case !params[pm[1]]:
		return "", fmt.Sprintf("${%s}: no parameter %q in params (params: %s)", ref, pm[1], strings.Join(sortedKeys(params), ", "))
	}
	return pm[1], ""
}

// env merges, later sources winning: the cube's env_args, docker -e
// flags, the pipeline's configs, the step's envFile, the step's env, the
// pipeline's secretEnv, then the step's secretEnv. Only the pipeline
// file's own values may refer to ${params.X}. Values that look like
// credentials are refused. Variables are sorted by name.
func (lw *lowering) env(st *stepSpec, fx dockerEffects) []ir.EnvVar {
	merged := map[string]ir.EnvVar{}
	add := func(vars []envVar, pipeline bool) {
		for _, e := range vars {
			if !envName.MatchString(e.Name) {
				lw.errorf(e.Loc, "%q is not a valid environment variable name", e.Name)
				continue
			}
			if diags := checkCredential(e.Name, e.Value, e.Loc); diags != nil {
				lw.diags = append(lw.diags, diags...)
				continue
			}
			value := ir.Lit(e.Value)
			if pipeline {
				value = lw.text(e.Value, e.Loc)
			}
			merged[e.Name] = ir.EnvVar{Name: e.Name, Value: value}
		}
	}
	add(cubeEnv(st.Cube), false)
	add(fx.env, false)
	for _, e := range lw.configEnv() {
		merged[e.Name] = e
	}
	add(st.EnvFileVars, true)
	add(st.Env, true)
	own := map[string]bool{}
	for _, e := range st.Env {
		own[e.Name] = true
	}
	for _, e := range append(append([]secretEnvVar{}, lw.spec.SecretEnv...), st.SecretEnv...) {
		if own[e.Name] {
			lw.errorf(e.Loc, "%s is also set by %s; a variable comes from env or from secretEnv, not both", e.Name, st.Loc.Field("env").Path())
		}
		merged[e.Name] = ir.EnvVar{Name: e.Name, Secret: &ir.SecretKey{Secret: e.Secret, Key: e.Key}}
	}
	var out []ir.EnvVar
	for _, k := range sortedKeys(merged) {
		out = append(out, merged[k])
	}
	return out
}

func cubeEnv(c *cube) []envVar {
	if c == nil {
		return nil
	}
	return c.Env
}

// resources merges the step's requests over what the cube's docker flags say.
func (lw *lowering) resources(st *stepSpec, gpus int, fx dockerEffects) ir.Resources {
	r := ir.Resources{GPU: gpus, CPU: fx.cpu, Memory: fx.memory, LimitsEqualRequests: lw.plat.LimitsEqual}
	if st.Resources.CPU != nil {
		r.CPU = lw.quantity(fmt.Sprint(st.Resources.CPU), st.Loc.Field("resources").Field("cpu"))
	}
	if st.Resources.Memory != nil {
		r.Memory = lw.quantity(fmt.Sprint(st.Resources.Memory), st.Loc.Field("resources").Field("memory"))
	}
	if r.LimitsEqualRequests && (r.CPU == "" || r.Memory == "") {
		// Said at the step, which may not write resources.
		lw.warnf(st.Loc.Field("resources").At(st.Loc.Pos()), "the platform sets limitsEqualRequests, but this requests no cpu or no memory, so it gets no limit for it, and a ResourceQuota that counts limits rejects its pod; give resources.cpu and resources.memory")
	}
	if gpus > 0 {
		r.GPUResource = lw.plat.GPU.Resource
		if r.GPUResource == "" {
			r.GPUResource = defaultGPUResource
		}
	}
	return r
}

// scheduling merges the platform's GPU or CPU scheduling with the step's;
// the step wins for a node selector key, and tolerations add up.
func (lw *lowering) scheduling(st *stepSpec, s *ir.Step, gpu bool) {
	s.NodeSelector, s.Tolerations = lw.placement(st, gpu)
	s.SecurityContext = mergeSecurity(lw.plat.SecurityContext, st.SecurityContext)
}

// placement merges the platform's GPU or CPU node selector and
// tolerations with the step's.
func (lw *lowering) placement(st *stepSpec, gpu bool) (map[string]string, []ir.Toleration) {
	base, section := lw.plat.CPU, lw.plat.loc.Field("cpu")
	if gpu {
		base, section = lw.plat.GPU.scheduling, lw.plat.loc.Field("gpu")
	}
	sel := map[string]string{}
	for k, v := range base.NodeSelector {
		lw.labelKey(k, section.Field("nodeSelector").Field(k))
		sel[k] = v
	}
	for k, v := range st.NodeSelector {
		lw.labelKey(k, st.Loc.Field("nodeSelector").Field(k))
		sel[k] = v
	}
	if len(sel) == 0 {
		sel = nil
	}
	lw.tolerations(base.Tolerations, section.Field("tolerations"))
	lw.tolerations(st.Tolerations, st.Loc.Field("tolerations"))
	var tols []ir.Toleration
	seen := map[tolerationSpec]bool{}
	for _, t := range append(append([]tolerationSpec{}, base.Tolerations...), st.Tolerations...) {
		key := t
		key.TolerationSeconds = nil
		if seen[key] {
			continue
		}
		seen[key] = true
		tols = append(tols, ir.Toleration{Key: t.Key, Operator: t.Operator, Value: t.Value, Effect: t.Effect, TolerationSeconds: t.TolerationSeconds})
	}
	return sel, tols
}

// labelKey checks a node selector key, which is a Kubernetes label key.
func (lw *lowering) labelKey(k string, at diag.Loc) {
	if len(validation.IsQualifiedName(k)) > 0 {
		lw.errorf(at, "%q is not a valid label key: an optional DNS prefix and '/', then at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit", k)
	}
}

// tolerations checks each toleration of the list at, reported at the
// list.
func (lw *lowering) tolerations(tols []tolerationSpec, at diag.Loc) {
	for i, t := range tols {
		lw.toleration(t, at.Index(i).At(at.Pos()))
	}
}

// toleration checks what the API server checks of a toleration.
func (lw *lowering) toleration(t tolerationSpec, at diag.Loc) {
	switch {
	case t.Key != "" && len(validation.IsQualifiedName(t.Key)) > 0:
		lw.errorf(at.Field("key"), "%q is not a valid taint key (an optional DNS prefix and '/', then letters, digits, '-', '_' or '.')", t.Key)
	case t.Key == "" && t.Operator != "Exists":
		lw.errorf(at.Field("key"), "a toleration without a key must have operator: Exists")
	case t.Operator == "Exists" && t.Value != "":
		lw.errorf(at.Field("value"), "a toleration with operator: Exists has no value")
	case t.Value != "" && len(validation.IsValidLabelValue(t.Value)) > 0:
		lw.errorf(at.Field("value"), "%q is not a valid taint value (at most 63 letters, digits, '-', '_' or '.')", t.Value)
	case t.TolerationSeconds != nil && t.Effect != "NoExecute":
		lw.errorf(at.Field("tolerationSeconds"), "tolerationSeconds needs effect: NoExecute")
	}
}

// mergeSecurity lays the step's security settings over the platform's.
func mergeSecurity(base, over *securityContextSpec) *ir.SecurityContext {
	if base == nil && over == nil {
		return nil
	}
	out := &ir.SecurityContext{}
	for _, sc := range []*securityContextSpec{base, over} {
		if sc == nil {
			continue
		}
		if sc.RunAsUser != nil {
			out.RunAsUser = sc.RunAsUser
		}
		if sc.RunAsGroup != nil {
			out.RunAsGroup = sc.RunAsGroup
		}
		if sc.FSGroup != nil {
			out.FSGroup = sc.FSGroup
		}
		if sc.RunAsNonRoot != nil {
			out.RunAsNonRoot = sc.RunAsNonRoot
		}
	}
	return out
}

// retryAndTimeout checks and sets the step's retries and timeout.
func (lw *lowering) retryAndTimeout(st *stepSpec, s *ir.Step) {
	if r := st.Retries; r != nil {
		if r.Limit > maxRetries {
			lw.errorf(st.Loc.Field("retries").Field("limit"), "%d retries is more than the %d allowed", r.Limit, maxRetries)
		}
		s.Retry = &ir.Retry{Limit: r.Limit}
		if r.Backoff != "" {
			s.Retry.Backoff = lw.duration(r.Backoff, st.Loc.Field("retries").Field("backoff"))
		}
	}
	if st.Timeout != "" {
		s.Timeout = lw.duration(st.Timeout, st.Loc.Field("timeout"))
	}
}

// duration parses a positive duration such as 30s, 15m or 4h.
func (lw *lowering) duration(s string, at diag.Loc) time.Duration {
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		lw.errorf(at, "%q is not a positive duration (such as 30s, 15m or 4h)", s)
		return 0
	}
	if d%time.Second != 0 {
		lw.errorf(at, "%q: engines count in whole seconds", s)
	}
	return d
}

// order adds explicit and path-flow dependencies, rejects cycles, and puts
// the steps in topological order.
func (lw *lowering) order(steps []*ir.Step, io []graph.IO) {
	edges := graph.InferEdges(io)
	index := map[string]int{}
	for i, st := range lw.spec.Steps {
		index[st.Name] = i
	}
	for j, st := range lw.spec.Steps {
		for k, a := range st.After {
			i, ok := index[a]
			switch {
			case !ok:
				lw.errorf(st.Loc.Field("after").Index(k), "no step %q (steps: %s)", a, strings.Join(sortedKeys(index), ", "))
			case i == j:
				lw.errorf(st.Loc.Field("after").Index(k), "a step cannot run after itself")
			default:
				edges[j][i] = true
			}
		}
	}
	names := make([]string, len(steps))
	for i, s := range steps {
		names[i] = s.Name
	}
	if cycle := graph.FindCycle(specNames(lw.spec.Steps), edges); cycle != nil {
		first := lw.spec.Steps[index[cycle[0]]]
		lw.errorf(first.Loc, "dependency cycle: %s", strings.Join(cycle, " -> "))
		return
	}
	order := graph.TopoOrder(names, edges)
	edges = graph.Reduce(order, edges)
	for _, n := range order {
		for _, d := range graph.SortedInts(edges[n]) {
			steps[n].Dependencies = append(steps[n].Dependencies, steps[d].Name)
		}
		sort.Strings(steps[n].Dependencies)
		lw.p.Steps = append(lw.p.Steps, steps[n])
	}
}

func specNames(steps []*stepSpec) []string {
	out := make([]string, len(steps))
	for i, st := range steps {
		out[i] = st.Name
	}
	return out
}
