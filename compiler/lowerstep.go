package compiler

import (
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
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
func (lw *lowering) lowerSteps() ([]*ir.Step, []stepIO) {
	names := newNameSet()
	var steps []*ir.Step
	var io []stepIO
	for _, st := range lw.spec.Steps {
		name, ok := names.take(st.Name, st.Name)
		if !ok {
			lw.diags.errorf(st.Pos, st.field, "step name %q has no letters or digits to make an engine name from", st.Name)
			continue
		}
		var s *ir.Step
		var sio stepIO
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

func (lw *lowering) lowerStep(st *stepSpec, name string) (*ir.Step, stepIO) {
	c, t := st.Cube, st.Task
	s := &ir.Step{
		Name: name, Cube: c.Name, Task: t.Name,
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
	fx := mapDockerArgs(args, lw.diags)
	if fx.gpus != nil && *fx.gpus != gpus && gpus > 0 && st.Resources.GPU == nil {
		lw.diags.warnf(args.Pos, args.Field, "--gpus=%d differs from platform.accelerator_count %d; the step asks for %d", *fx.gpus, gpus, gpus)
	}
	s.ShmSize = fx.shmSize
	s.Resources = lw.resources(st, gpus, fx)
	var sio stepIO
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
	lw.diags.errorf(Pos{File: c.File, Line: 1, Col: 1}, "docker.image", "no image: set docker.image in the cube or image in the platform file")
	return ""
}

// containerArgs builds the command and arguments the MLCube runners use:
// the task name first unless the task has an entrypoint, then one
// --param=path per parameter, then the step's own args.
func (lw *lowering) containerArgs(st *stepSpec) ([]string, []ir.Arg, []ir.Mount, stepIO) {
	var command []string
	var args []ir.Arg
	t := st.Task
	switch {
	case t.Entrypoint != "":
		words, err := splitWords(t.Entrypoint)
		if err != nil {
			lw.diags.errorf(t.Pos, "tasks."+t.Name+".entrypoint", "%v", err)
		}
		command = words
	case !st.Cube.Legacy:
		args = append(args, ir.Arg{Value: ir.Lit(t.Name)})
	}
	mounts := map[string]string{}
	var io stepIO
	bind := func(p *param, kind string, override string, out *[]string) {
		raw, pos, field := p.Path, p.Pos, "tasks."+t.Name+".parameters."+kind+"."+p.Name
		parse := ir.Lit // a cube's own paths hold no pipeline references
		if override != "" {
			raw, pos, field = override, st.pos(kind, p.Name), st.field+"."+kind+"."+p.Name
			parse = func(s string) ir.Text { return lw.text(s, pos, field) }
		}
		arg := ir.Arg{Param: p.Name, Prefix: "--" + p.Name + "="}
		if strings.HasPrefix(raw, "/") {
			lw.diags.warnf(pos, field, "absolute path %q is in the container, not on the workspace volume; steps cannot pass data through it", raw)
			arg.Value = parse(raw)
			args = append(args, arg)
			return
		}
		var volume, root string
		if p.Claim != "" {
			volume, root = lw.claimVolume(p.Claim, p.Pos)
		} else {
			volume, root = lw.workspace(), lw.mountPath
		}
		mounts[volume] = root
		rel := cleanKeepParams(raw)
		if rel == ".." || strings.HasPrefix(rel, "../") {
			lw.diags.warnf(pos, field, "path %q leaves the workspace; in the container it is %s, outside the volume", raw, path.Join(root, rel))
		}
		arg.Value = ir.Lit(root)
		if rel != "" {
			arg.Value = mergeLiterals(append(ir.Lit(root+"/"), parse(rel)...))
		}
		*out = append(*out, qualify(volume, rel))
		args = append(args, arg)
	}
	for _, p := range t.Inputs {
		bind(p, "inputs", st.Inputs[p.Name], &io.reads)
	}
	for _, p := range t.Outputs {
		bind(p, "outputs", st.Outputs[p.Name], &io.writes)
	}
	for i, a := range st.Args {
		field := fmt.Sprintf("%s.args[%d]", st.field, i)
		checkArgCredential(a, st.ArgPos[i], field, lw.diags)
		args = append(args, ir.Arg{Value: lw.text(a, st.ArgPos[i], field)})
	}
	var ms []ir.Mount
	for _, v := range sortedKeys(mounts) {
		ms = append(ms, ir.Mount{Volume: v, MountPath: mounts[v]})
	}
	return command, args, ms, io
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
func (lw *lowering) text(s string, pos Pos, field string) ir.Text {
	var out ir.Text
	last := 0
	for _, m := range anyRef.FindAllStringSubmatchIndex(s, -1) {
		ref := strings.TrimSpace(s[m[2]:m[3]])
		param, problem := paramOf(ref, lw.params)
		switch {
		case problem != "":
			lw.diags.errorf(pos, field, "%s", problem)
			continue
		case lw.noParams != "":
			lw.diags.errorf(pos, field, "${%s}: this step runs as %s, whose manifest the engine fills in without escaping, so a parameter's value could rewrite it; write the value itself", ref, lw.noParams)
			continue
		}
		if before := s[last:m[0]]; strings.HasSuffix(before, "$") || strings.HasSuffix(before, "{") {
			lw.diags.errorf(pos, field, "%q right before ${%s} would join with its value into engine syntax such as $(…) or {{…}}; put something else between them", before[len(before)-1:], ref)
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
	type source struct {
		vars     []envVar
		field    string
		pipeline bool
	}
	merged := map[string]ir.EnvVar{}
	add := func(src source) {
		for _, e := range src.vars {
			field := joinPath(src.field, e.Name)
			if !envName.MatchString(e.Name) {
				lw.diags.errorf(e.Pos, field, "%q is not a valid environment variable name", e.Name)
				continue
			}
			if !checkCredential(e.Name, e.Value, e.Pos, field, lw.diags) {
				continue
			}
			value := ir.Lit(e.Value)
			if src.pipeline {
				value = lw.text(e.Value, e.Pos, field)
			}
			merged[e.Name] = ir.EnvVar{Name: e.Name, Value: value}
		}
	}
	add(source{cubeEnv(st.Cube), "docker.env_args", false})
	add(source{fx.env, fx.field, false})
	for _, e := range lw.configEnv() {
		merged[e.Name] = e
	}
	add(source{st.EnvFileVars, st.field + ".envFile", true})
	add(source{st.Env, st.field + ".env", true})
	own := map[string]bool{}
	for _, e := range st.Env {
		own[e.Name] = true
	}
	for _, e := range append(append([]secretEnvVar{}, lw.spec.SecretEnv...), st.SecretEnv...) {
		if own[e.Name] {
			lw.diags.errorf(e.Pos, e.Field, "%s is also set by %s.env; a variable comes from env or from secretEnv, not both", e.Name, st.field)
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
		r.CPU = lw.quantity(fmt.Sprint(st.Resources.CPU), st.pos("resources", "cpu"), st.field+".resources.cpu")
	}
	if st.Resources.Memory != nil {
		r.Memory = lw.quantity(fmt.Sprint(st.Resources.Memory), st.pos("resources", "memory"), st.field+".resources.memory")
	}
	if r.LimitsEqualRequests && (r.CPU == "" || r.Memory == "") {
		lw.diags.warnf(st.pos(), st.field+".resources", "the platform sets limitsEqualRequests, but this requests no cpu or no memory, so it gets no limit for it, and a ResourceQuota that counts limits rejects its pod; give resources.cpu and resources.memory")
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
	base, section := lw.plat.CPU, "cpu"
	if gpu {
		base, section = lw.plat.GPU.scheduling, "gpu"
	}
	sel := map[string]string{}
	for k, v := range base.NodeSelector {
		lw.labelKey(k, lw.plat.at(section, "nodeSelector", k), joinPath(section+".nodeSelector", k))
		sel[k] = v
	}
	for k, v := range st.NodeSelector {
		lw.labelKey(k, st.pos("nodeSelector", k), joinPath(st.field+".nodeSelector", k))
		sel[k] = v
	}
	if len(sel) == 0 {
		sel = nil
	}
	for i, t := range base.Tolerations {
		lw.toleration(t, lw.plat.at(section, "tolerations"), fmt.Sprintf("%s.tolerations[%d]", section, i))
	}
	for i, t := range st.Tolerations {
		lw.toleration(t, st.pos("tolerations"), fmt.Sprintf("%s.tolerations[%d]", st.field, i))
	}
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
func (lw *lowering) labelKey(k string, pos Pos, field string) {
	if len(validation.IsQualifiedName(k)) > 0 {
		lw.diags.errorf(pos, field, "%q is not a valid label key: an optional DNS prefix and '/', then at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit", k)
	}
}

// toleration checks what the API server checks of a toleration.
func (lw *lowering) toleration(t tolerationSpec, pos Pos, field string) {
	switch {
	case t.Key != "" && len(validation.IsQualifiedName(t.Key)) > 0:
		lw.diags.errorf(pos, field+".key", "%q is not a valid taint key (an optional DNS prefix and '/', then letters, digits, '-', '_' or '.')", t.Key)
	case t.Key == "" && t.Operator != "Exists":
		lw.diags.errorf(pos, field+".key", "a toleration without a key must have operator: Exists")
	case t.Operator == "Exists" && t.Value != "":
		lw.diags.errorf(pos, field+".value", "a toleration with operator: Exists has no value")
	case t.Value != "" && len(validation.IsValidLabelValue(t.Value)) > 0:
		lw.diags.errorf(pos, field+".value", "%q is not a valid taint value (at most 63 letters, digits, '-', '_' or '.')", t.Value)
	case t.TolerationSeconds != nil && t.Effect != "NoExecute":
		lw.diags.errorf(pos, field+".tolerationSeconds", "tolerationSeconds needs effect: NoExecute")
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
			lw.diags.errorf(st.pos("retries", "limit"), st.field+".retries.limit", "%d retries is more than the %d allowed", r.Limit, maxRetries)
		}
		s.Retry = &ir.Retry{Limit: r.Limit}
		if r.Backoff != "" {
			s.Retry.Backoff = lw.duration(r.Backoff, st.pos("retries", "backoff"), st.field+".retries.backoff")
		}
	}
	if st.Timeout != "" {
		s.Timeout = lw.duration(st.Timeout, st.pos("timeout"), st.field+".timeout")
	}
}

// duration parses a positive duration such as 30s, 15m or 4h.
func (lw *lowering) duration(s string, pos Pos, field string) time.Duration {
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		lw.diags.errorf(pos, field, "%q is not a positive duration (such as 30s, 15m or 4h)", s)
		return 0
	}
	if d%time.Second != 0 {
		lw.diags.errorf(pos, field, "%q: engines count in whole seconds", s)
	}
	return d
}

// order adds explicit and path-flow dependencies, rejects cycles, and puts
// the steps in topological order.
func (lw *lowering) order(steps []*ir.Step, io []stepIO) {
	edges := inferEdges(io)
	index := map[string]int{}
	for i, st := range lw.spec.Steps {
		index[st.Name] = i
	}
	for j, st := range lw.spec.Steps {
		for k, a := range st.After {
			i, ok := index[a]
			switch {
			case !ok:
				lw.diags.errorf(st.AfterPos[k], fmt.Sprintf("%s.after[%d]", st.field, k), "no step %q (steps: %s)", a, strings.Join(sortedKeys(index), ", "))
			case i == j:
				lw.diags.errorf(st.AfterPos[k], fmt.Sprintf("%s.after[%d]", st.field, k), "a step cannot run after itself")
			default:
				edges[j][i] = true
			}
		}
	}
	names := make([]string, len(steps))
	for i, s := range steps {
		names[i] = s.Name
	}
	if cycle := findCycle(specNames(lw.spec.Steps), edges); cycle != nil {
		first := lw.spec.Steps[index[cycle[0]]]
		lw.diags.errorf(first.Pos, first.field, "dependency cycle: %s", strings.Join(cycle, " -> "))
		return
	}
	order := topoOrder(names, edges)
	edges = reduce(order, edges)
	for _, n := range order {
		for _, d := range sortedInts(edges[n]) {
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
