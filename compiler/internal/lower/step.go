package lower

import (
	"cmp"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mlcube-compile/mlcube-compile/compiler/graph"
	"github.com/mlcube-compile/mlcube-compile/compiler/internal/spec"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

var (
	cubeLabel = "mlcube-compile/cube"
	taskLabel = "mlcube-compile/task"
)

// stepLowering is one step being lowered: the step as written, the name
// it is lowered under, what it fetches, reads and writes, and the kind of
// job whose manifest it becomes. What the whole pipeline shares, and
// gathers from every step, is its lowering's.
type stepLowering struct {
	*lowering
	st   *spec.Step
	name string
	data *stepData
	// noParams, when set, names the kind of job whose manifest the step
	// becomes: a parameter reference there is replaced by its
	// compile-time value, and refused without one.
	noParams string
}

// jobOf names the kind of job whose manifest a step becomes on plat,
// where the engine fills in no parameters: "" for a step the engine runs
// itself.
func jobOf(st *spec.Step, plat *spec.Platform) string {
	switch {
	case st.MPI != nil:
		return "an MPIJob"
	case st.Torch != nil:
		return "a TrainJob"
	case st.Dask != nil:
		return "a " + string(daskForm(plat))
	}
	return ""
}

// lowerSteps lowers every step and returns what each reads and writes.
func (lw *lowering) lowerSteps() ([]*ir.Step, []graph.IO) {
	names := newNameSet()
	var steps []*ir.Step
	var io []graph.IO
	for _, st := range lw.spec.Steps {
		name, ok := names.take(st.Name, st.Name)
		if !ok {
			// A stand-in: package verify refuses the name as written.
			name, _ = names.take(st.Name, "step")
		}
		sl := &stepLowering{lowering: lw, st: st, name: name, data: &stepData{names: newNameSet()},
			noParams: jobOf(st, lw.plat)}
		lw.data[name] = sl.data
		s, sio := sl.lower()
		steps = append(steps, s)
		io = append(io, sio)
	}
	return steps, io
}

// lower lowers the step, and returns what it reads and writes.
func (sl *stepLowering) lower() (*ir.Step, graph.IO) {
	var s *ir.Step
	var io graph.IO
	if sl.st.Dask != nil {
		s, io = sl.lowerDaskStep()
	} else {
		s, io = sl.lowerStep()
	}
	s.Written, s.After = sl.st.Name, sl.st.After
	s.Fetches = sl.data.fetches
	if s.Kind == ir.Container {
		s.Folders = sl.data.folders
	}
	return s, io
}

// lowerStep lowers a container, MPI or torch step.
func (sl *stepLowering) lowerStep() (*ir.Step, graph.IO) {
	st := sl.st
	c, t := st.Cube, st.Task
	s := &ir.Step{
		Name: sl.name, Loc: st.Loc, Cube: c.Name, Task: t.Name,
		Template:        sl.templateName(c, t),
		ImagePullPolicy: sl.plat.ImagePullPolicy,
		Labels: map[string]string{
			cubeLabel: labelValue(c.Name), taskLabel: labelValue(t.Name),
		},
	}
	var diags diag.Diagnostics
	s.Image, diags = image(sl.plat.Image, c)
	s.Image, s.ImageLocked = pinned(sl.plat, s.Image)
	sl.diags = append(sl.diags, diags...)
	gpus, args := st.GPUs()
	sl.diags = append(sl.diags, gpusFromCube(st, gpus)...)
	sl.noteGPUFlag()
	fx, diags := spec.MapDockerArgs(args, gpus)
	sl.diags = append(sl.diags, diags...)
	for _, f := range st.Cube.Flags {
		more, diags := spec.MapDockerArgs(f, gpus)
		sl.diags = append(sl.diags, diags...)
		fx = fx.Then(more)
	}
	if fx.GPUs != nil && *fx.GPUs != gpus && gpus > 0 && st.Resources.GPU == nil {
		sl.diags = append(sl.diags, diag.Warnf(diag.GPUCountDiffers, args.Loc,
			"--gpus=%d differs from platform.accelerator_count %d; the step asks for %d",
			*fx.GPUs, gpus, gpus))
	}
	s.ShmSize, s.ShmHost = fx.ShmSize, fx.ShmHost
	s.Resources = sl.resources(st.Resources, st.Loc.Field("resources"), st.Loc, gpus, fx)
	sl.diags = append(sl.diags, chargeShm(st, s)...)
	var sio graph.IO
	s.Command, s.Args, s.Mounts, sio = sl.containerArgs()
	s.ArgsAreCommand = st.Cube.Container && st.Task.Run.Entrypoint == "" && len(st.Task.Run.Command) > 0
	s.Env = sl.env(fx)
	sl.scheduling(s, gpus > 0)
	sl.diags = append(sl.diags, retryAndTimeout(st, s)...)
	sl.queue(s)
	sl.isolate(s)
	switch {
	case st.MPI != nil:
		sl.lowerMPI(s)
	case st.Torch != nil:
		sl.lowerTorch(s)
	}
	return s, sio
}

// isolate marks the step of a MedPerf container, which MedPerf runs with
// the network off (disable_network=True,
// cli/medperf/containers/runners/docker_runner.py of mlcommons/medperf),
// unless the platform lets it keep the cluster's network.
func (sl *stepLowering) isolate(s *ir.Step) {
	if sl.st.Cube.Container && sl.plat.MedPerf.Network != "allowed" {
		s.NoNetwork = true
		s.Labels[ir.NetworkLabel] = "none"
	}
}

// templateName names the definition shared by steps that run one cube task.
func (lw *lowering) templateName(c *spec.Cube, t *spec.Task) string {
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
func image(platform string, c *spec.Cube) (string, diag.Diagnostics) {
	if img := cmp.Or(platform, c.K8s.Image, c.Image); img != "" {
		return img, nil
	}
	return "", diag.Diagnostics{diag.Errorf(diag.NoImage,
		diag.At(diag.Pos{File: c.File, Line: 1, Col: 1}).Field("docker").Field("image"),
		"no image: set docker.image in the cube or image in the platform file")}
}

// pinned is image with the digest the platform's imageDigests gives it,
// and true; image itself when it names a digest or the map holds none.
// An entry is found by the image as written, or as a registry names it
// (imageRef): python:3.12 is docker.io/library/python:3.12.
func pinned(plat *spec.Platform, image string) (string, bool) {
	if strings.Contains(image, "@") {
		return image, false
	}
	if d, ok := plat.ImageDigests[image]; ok {
		return image + "@" + d, true
	}
	for _, key := range slices.Sorted(maps.Keys(plat.ImageDigests)) {
		if imageRef(key) == imageRef(image) {
			return image + "@" + plat.ImageDigests[key], true
		}
	}
	return image, false
}

// imageRef is image, which names no digest, as a registry names it:
// with its registry (docker.io when the first part names no host, as
// index.docker.io does), library/ before a docker.io image of one part,
// and :latest when it has no tag, as docker and the kubelet read it.
func imageRef(image string) string {
	host, rest, ok := strings.Cut(image, "/")
	if !ok || !strings.ContainsAny(host, ".:") && host != "localhost" {
		host, rest = "docker.io", image
	}
	if host == "index.docker.io" {
		host = "docker.io"
	}
	if host == "docker.io" && !strings.Contains(rest, "/") {
		rest = "library/" + rest
	}
	if !strings.Contains(rest[strings.LastIndex(rest, "/")+1:], ":") {
		rest += ":latest"
	}
	return host + "/" + rest
}

// maxRetries is the most retries a step may ask for.
const maxRetries = 100

// retryAndTimeout sets the step's retries and timeout, and its cache
// setting, which the cache-keys pass reads.
func retryAndTimeout(st *spec.Step, s *ir.Step) diag.Diagnostics {
	var diags, more diag.Diagnostics
	if r := st.Retries; r != nil {
		s.Retry = &ir.Retry{Limit: r.Limit}
		if r.Limit > maxRetries {
			diags = append(diags, diag.Errorf(diag.BadRetry, st.Loc.Field("retries").Field("limit"),
				"%d retries is more than the %d allowed", r.Limit, maxRetries))
		}
		if r.Backoff != "" {
			s.Retry.Backoff, more = duration(r.Backoff, st.Loc.Field("retries").Field("backoff"))
			diags = append(diags, more...)
		}
	}
	if st.Timeout != "" {
		s.Timeout, more = duration(st.Timeout, st.Loc.Field("timeout"))
		diags = append(diags, more...)
	}
	s.CacheSetting = st.Cache
	return diags
}

// duration parses a positive duration in whole seconds written at at,
// such as 30s, 15m or 4h; 0 for one it refuses.
func duration(s string, at diag.Loc) (time.Duration, diag.Diagnostics) {
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, diag.Diagnostics{diag.Errorf(diag.BadRetry, at,
			"%q is not a positive duration (such as 30s, 15m or 4h)", s)}
	}
	if d%time.Second != 0 {
		return d, diag.Diagnostics{diag.Errorf(diag.BadRetry, at, "%q: engines count in whole seconds", s)}
	}
	return d, nil
}

// flow is the path flow between the steps, once each is lowered: the
// steps as written and as lowered, in written order, what each reads and
// writes (by volume-qualified path), and each one's data, by its name.
type flow struct {
	specs []*spec.Step
	steps []*ir.Step
	io    []graph.IO
	data  map[string]*stepData
}

// order adds explicit and path-flow dependencies, rejects cycles, and puts
// returns the steps in topological order. A cube's tasks run without --task keep
// the file's order wherever their paths touch (graph.FileOrderEdges says
// why); a --task list runs as listed, as mlcube run does, its after:
// chain alone ordering the steps.
func (fl *flow) order(tasks spec.TaskOrder) ([]*ir.Step, diag.Diagnostics) {
	steps, io := fl.steps, fl.io
	var edges []map[int]bool
	switch tasks {
	case spec.EveryTask:
		edges = graph.FileOrderEdges(io, inputsWritable(fl.specs))
	case spec.InOrder:
		io = make([]graph.IO, len(io))
		edges = graph.InferEdges(io)
	default:
		edges = graph.InferEdges(io)
	}
	after := afterEdges(fl.specs)
	addEdges(edges, after)
	names := make([]string, len(steps))
	for i, s := range steps {
		names[i] = s.Name
	}
	if graph.FindCycle(names, edges) != nil {
		// Left in written order, each step after every step it touches
		// (InferEdges leaves out implied edges), for verify to name the
		// cycle as written.
		edges = graph.AllEdges(io)
		addEdges(edges, after)
		return depend(steps, edges, nil), nil
	}
	var diags diag.Diagnostics
	if tasks == spec.PipelineSteps {
		diags = append(fl.mixedWriters(after), fl.overwrites(after)...)
	}
	order := graph.TopoOrder(names, edges)
	return depend(steps, graph.Reduce(order, edges), order), diags
}

// depend gives each step the steps of its edges as dependencies, and
// returns the steps in order (as given when nil).
func depend(steps []*ir.Step, edges []map[int]bool, order []int) []*ir.Step {
	if order == nil {
		order = make([]int, len(steps))
		for i := range order {
			order[i] = i
		}
	}
	var out []*ir.Step
	for _, n := range order {
		for _, d := range graph.SortedInts(edges[n]) {
			steps[n].Dependencies = append(steps[n].Dependencies, steps[d].Name)
		}
		sort.Strings(steps[n].Dependencies)
		out = append(out, steps[n])
	}
	return out
}

// afterEdges returns the steps each of steps names in after:, by index;
// package verify refuses a name that is no step, and a step that names
// itself, which are left out here.
func afterEdges(steps []*spec.Step) [][]int {
	index := map[string]int{}
	for i, st := range steps {
		index[st.Name] = i
	}
	after := make([][]int, len(steps))
	for j, st := range steps {
		for _, a := range st.After {
			if i, ok := index[a]; ok && i != j {
				after[j] = append(after[j], i)
			}
		}
	}
	return after
}

// addEdges adds to edges[j] each step in after[j].
func addEdges(edges []map[int]bool, after [][]int) {
	for j, deps := range after {
		for _, i := range deps {
			edges[j][i] = true
		}
	}
}

// inputsWritable reports whether steps, the tasks of the cube run without
// --task may change their inputs: an MLCube's may (its docker runner
// mounts every parameter writable, and so does the workspace claim here),
// a MedPerf container's may not (its inputs are mounted read-only, as
// MedPerf mounts them).
func inputsWritable(steps []*spec.Step) bool {
	for _, st := range steps {
		if st.Cube != nil && st.Cube.Container {
			return false
		}
	}
	return true
}
