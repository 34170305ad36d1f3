package spec

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/source"
	"github.com/mlcube-compile/mlcube-compile/diag"
	"github.com/mlcube-compile/mlcube-compile/schema"
)

// The MLCube 1.0 layout, in the two forms schema/legacy.cue describes:
// MLCube 1.0's docker runner (a root mlcube.yaml listing task files,
// run files binding $WORKSPACE paths, platforms/docker.yaml with the
// image) and the mlcube_k8s runner of seed 000 (a root listing run files
// whose bindings name a claim each).

const legacyPlatformFile = "platforms/docker.yaml"

// legacyRunDir is where MLCube 1.0 keeps a cube's run files, and
// legacyTaskDir its task files (mlcube_metadata.py: MLCube.get_files
// and tasks_path).
const (
	legacyRunDir  = "run"
	legacyTaskDir = "tasks"
)

// decodeLegacyRoot reads the root file and, unless invoke is set, the
// cube's tasks: the run files it lists (the mlcube_k8s runner), or, when
// it lists task files, every run file under run/ (the docker runner).
// docker is what the legacy docker platform file gives the cube.
func decodeLegacyRoot(sc *schema.Context, files *source.Files, f *ast.File, docker *legacyDocker,
	invoke *ast.File) (*Cube, diag.Diagnostics) {
	doc, diags := checkDocument(sc, f, schema.LegacyRoot)
	if !doc.usable {
		return nil, diags
	}
	c := &Cube{Name: str(doc.data, "name"), File: doc.file, Legacy: true}
	docker.apply(c)
	r := &legacyReader{sc: sc, files: files, dir: filepath.Dir(doc.file)}
	listed := r.listed(doc)
	if invoke != nil {
		if t := r.invoke(invoke); t != nil {
			c.Tasks = append(c.Tasks, t)
		}
		return c, append(diags, r.diags...)
	}
	for _, f := range listed {
		if t := r.invoke(f); t != nil {
			c.Tasks = append(c.Tasks, t)
		}
	}
	if r.docker {
		c.Tasks = append(c.Tasks, r.runFiles(doc)...)
	}
	return c, append(diags, r.diags...)
}

// legacyReader reads the files of one 1.0 cube, in the folder dir.
type legacyReader struct {
	sc    *schema.Context
	files *source.Files
	dir   string
	// docker is set when the root lists task files: the cube is for
	// MLCube 1.0's docker runner, which passes the task name first and
	// reads each parameter's type from tasks/<task_name>.yaml.
	docker bool
	// order is the position of each task name in the root's list.
	order map[string]int
	diags diag.Diagnostics
}

// listed reads the files the root lists, returning the run files among
// them; task files set r.docker and r.order.
func (r *legacyReader) listed(doc *document) []*ast.File {
	var runs []*ast.File
	r.order = map[string]int{}
	list, _ := doc.data.LookupPath(pathOf("tasks")).List()
	for i := 0; list.Next(); i++ {
		rel, _ := list.Value().String()
		f := r.read(filepath.Join(r.dir, rel), doc.at("tasks").Index(i))
		switch {
		case f == nil:
		case source.TopLevelString(f, "schema_type") == "mlcube_task":
			r.docker = true
			r.order[strings.TrimSuffix(filepath.Base(rel), filepath.Ext(rel))] = i
		default:
			runs = append(runs, f)
		}
	}
	return runs
}

func (r *legacyReader) read(file string, via diag.Loc) *ast.File {
	f, diags := r.files.ReadYAMLKeepLast(file, via)
	r.diags = append(r.diags, diags...)
	return f
}

// invoke reads one run file (schema_type mlcube_invoke) as a task named
// by its task_name.
func (r *legacyReader) invoke(f *ast.File) *Task {
	doc, diags := checkDocument(r.sc, f, schema.LegacyInvoke)
	r.diags = append(r.diags, diags...)
	if !doc.usable {
		return nil
	}
	t := &Task{Name: str(doc.data, "task_name"), Loc: doc.at("task_name"), File: doc.file}
	var types map[string]map[string]bool
	if r.docker {
		t.InvokeName = t.Name
		types = r.taskTypes(t)
	}
	t.Inputs = r.bindings(doc, "input_binding", types["inputs"])
	t.Outputs = r.bindings(doc, "output_binding", types["outputs"])
	if !r.docker {
		r.diags = append(r.diags, checkParamNames(t, diag.Loc{}.Field("bindings"))...)
	}
	r.diags = append(r.diags, r.sameInAndOut(t)...)
	return t
}

// bindings reads the parameters of one binding map; types, when the
// task file was read, says which of them are directories, and any
// binding it does not list is refused, as MLCube 1.0 refuses it.
func (r *legacyReader) bindings(doc *document, kind string, types map[string]bool) []*Param {
	var out []*Param
	forFields(doc.data.LookupPath(pathOf(kind)), func(name string, v cue.Value) {
		p := &Param{Name: name, Loc: doc.at(kind, name)}
		if s, err := v.String(); err == nil {
			p.Path = r.workspacePath(s, p.Loc)
		} else {
			p.Path, p.Claim = str(v, "path"), str(v, "k8s", "pvc")
		}
		if types != nil {
			dir, ok := types[name]
			if !ok {
				r.unknownBinding(doc, kind, name, types)
				return
			}
			p.Dir = dir
		}
		out = append(out, p)
	})
	return out
}

// workspacePath is a docker runner's binding as a path in the workspace:
// the runner replaces $WORKSPACE with the cube's workspace folder
// (docker_run.py, _generate_mounts_and_args), which here is the
// workspace volume.
func (r *legacyReader) workspacePath(s string, at diag.Loc) string {
	const ws = "$WORKSPACE"
	switch {
	case s == ws:
		return "."
	case strings.HasPrefix(s, ws+"/"):
		return strings.TrimLeft(strings.TrimPrefix(s, ws), "/")
	case !strings.HasPrefix(s, "/"):
		r.diags = append(r.diags, diag.Warnf(diag.PathOutsideWorkspace, at,
			"path %q does not start with $WORKSPACE; here it is relative to the workspace", s).
			WithDetail("MLCube 1.0 takes it relative to the folder mlcube runs in."))
	}
	return s
}

// unknownBinding refuses a binding the task file does not declare:
// MLCube 1.0 looks the name up in the task's parameters and fails.
func (r *legacyReader) unknownBinding(doc *document, kind, name string, types map[string]bool) {
	what := strings.TrimSuffix(kind, "_binding")
	known := slices.Sorted(func(yield func(string) bool) {
		for n := range types {
			if !yield(n) {
				return
			}
		}
	})
	r.diags = append(r.diags, diag.Errorf(diag.UnknownName, doc.at(kind, name),
		"task %q declares no %s %q in %s (its %ss: %s)",
		str(doc.data, "task_name"), what, name, r.taskFile(str(doc.data, "task_name")), what,
		listOrNone(known)).WithSuggestion(name, known))
}

func listOrNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// sameInAndOut refuses a parameter bound as both an input and an output
// to two paths: MLCube passes both, and the program reads the last.
func (r *legacyReader) sameInAndOut(t *Task) diag.Diagnostics {
	var diags diag.Diagnostics
	for _, in := range t.Inputs {
		for _, out := range t.Outputs {
			if in.Name == out.Name && (in.Path != out.Path || in.Claim != out.Claim) {
				diags = append(diags, diag.Errorf(diag.BadParam, out.Loc,
					"%q is bound as an input to %q and as an output to %q; MLCube passes both and the program reads the "+
						"last: bind one path", in.Name, in.Path, out.Path))
			}
		}
	}
	return diags
}

// taskFile is the task file MLCube 1.0 reads for a task name.
func (r *legacyReader) taskFile(name string) string {
	return filepath.Join(r.dir, legacyTaskDir, name+".yaml")
}

// taskTypes reads tasks/<task_name>.yaml: for its inputs and its outputs,
// whether each parameter is a directory.
func (r *legacyReader) taskTypes(t *Task) map[string]map[string]bool {
	file := r.taskFile(t.Name)
	if _, err := r.files.Stat(file); err != nil {
		r.diags = append(r.diags, diag.Errorf(diag.MissingFile, t.Loc,
			"no task file %s: MLCube 1.0 reads the parameters of task %q from it", file, t.Name))
		return nil
	}
	f := r.read(file, t.Loc)
	if f == nil {
		return nil
	}
	doc, diags := checkDocument(r.sc, f, schema.LegacyTask)
	r.diags = append(r.diags, diags...)
	if !doc.usable {
		return nil
	}
	types := map[string]map[string]bool{}
	for _, kind := range []string{"inputs", "outputs"} {
		types[kind] = map[string]bool{}
		list, _ := doc.data.LookupPath(pathOf(kind)).List()
		for list.Next() {
			types[kind][str(list.Value(), "name")] = str(list.Value(), "type") == "directory"
		}
	}
	return types
}

// legacyDocker is what a 1.0 docker platform file gives a cube: the image
// and the flags the docker runner passes to docker run (run_args), for
// every task whether or not it uses GPUs.
type legacyDocker struct {
	Image   string
	RunArgs DockerArgs
}

// apply gives the cube what the platform file says; nothing for nil.
func (d *legacyDocker) apply(c *Cube) {
	if d == nil || c == nil {
		return
	}
	c.Image = d.Image
	c.GPUArgs, c.CPUArgs = d.RunArgs, d.RunArgs
	c.GPUFlag = runArgsGPUs(d.RunArgs)
}

// of is what a cube read before took from its platform file.
func legacyDockerOf(c *Cube) *legacyDocker {
	return &legacyDocker{Image: c.Image, RunArgs: c.CPUArgs}
}

// decodeLegacyPlatform reads a legacy docker platform file (podman's too,
// which runs the same images). A singularity one names an image file,
// which Kubernetes cannot run.
func decodeLegacyPlatform(sc *schema.Context, f *ast.File) (*legacyDocker, diag.Diagnostics) {
	doc, diags := checkDocument(sc, f, schema.LegacyPlatform)
	if !doc.usable {
		return nil, diags
	}
	if name := str(doc.data, "platform", "name"); name == "singularity" {
		return nil, append(diags, diag.Errorf(diag.NoImage, doc.at("platform", "name"),
			"a singularity platform file names an image file, which Kubernetes cannot run").
			WithFix(fmt.Sprintf("use MLCube's docker platform file (%s), which names the container image",
				legacyPlatformFile)))
	}
	// MLCube 1.0's docker runner exits when container.runtime is set
	// (DockerRun.run in runners/mlcube_docker/mlcube_docker/docker_run.py,
	// before Configuration 2.0): any value but an empty one.
	if rt := doc.data.LookupPath(pathOf("container", "runtime")); rt.Exists() &&
		strings.TrimSpace(scalarString(rt)) != "" && rt.IncompleteKind() != cue.NullKind {
		diags = append(diags, diag.Errorf(diag.LegacyRuntime, doc.at("container", "runtime"),
			"MLCube 1.0's docker runner stops before the container starts when runtime is set").
			WithFix(fmt.Sprintf("write it as a docker flag, run_args: --runtime=%s (for GPUs, --gpus=N)", scalarString(rt))).
			WithDetail("It says \"The 'runtime' parameter is deprecated. Please, use: 'run_args: --runtime=%s'\" "+
				"(DockerRun.run in runners/mlcube_docker/mlcube_docker/docker_run.py).", scalarString(rt)))
	}
	return &legacyDocker{
		Image:   str(doc.data, "container", "image"),
		RunArgs: DockerArgs{Text: str(doc.data, "container", "run_args"), Loc: doc.at("container", "run_args")},
	}, diags
}

// isLegacyPlatform reports whether a file is a platform file of the 1.0
// layout, by its schema_type.
func isLegacyPlatform(f *ast.File) bool {
	switch source.TopLevelString(f, "schema_type") {
	case "mlcube_platform", "mlcommons_box_platform":
		return true
	}
	return false
}

// IsClaimName reports whether a legacy binding's claim (k8s.pvc) is a
// valid PersistentVolumeClaim name: #DNSSubdomain's pattern, held once in
// schema; compiler/internal/lower asks here, as it never imports schema.
func IsClaimName(name string) bool { return schema.IsDNSSubdomain(name) }
