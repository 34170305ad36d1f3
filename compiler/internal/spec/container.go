package spec

import (
	"fmt"
	"path"
	"strconv"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/source"
	"github.com/mlcube-compile/mlcube-compile/diag"
	"github.com/mlcube-compile/mlcube-compile/schema"
)

// MedPerf's container_config.yaml: what MedPerf's docker runner does with
// it is in cli/medperf/containers/runners/docker_utils.py
// (craft_docker_run_command, volumes_to_cli_args) of mlcommons/medperf.

// RunArgs is a MedPerf task's run_args: what its container runs.
type RunArgs struct {
	// Entrypoint replaces the image's entrypoint (docker run
	// --entrypoint): one program, not split.
	Entrypoint string
	// Command is the container's arguments, after the image: MedPerf
	// splits a string with shlex.split.
	Command []string
	// GPUs is what gpus asks for; GPUsLoc is where it is written.
	GPUs    int
	GPUsLoc diag.Loc
	// Docker is shm_size as a docker flag, for MapDockerArgs.
	Docker DockerArgs
}

// CubeEnv is the environment the step's cube gives it: the cube's
// env_args, then a MedPerf task's run_args.environment.
func (st *Step) CubeEnv() []EnvVar {
	var out []EnvVar
	if st.Cube != nil {
		out = append(out, st.Cube.Env...)
	}
	if st.Task != nil {
		out = append(out, st.Task.Env...)
	}
	return out
}

// IsContainerConfig tells a MedPerf container_config.yaml by its
// top-level container_type, as MedPerf's load_parser does
// (cli/medperf/containers/parsers/factory.py).
func IsContainerConfig(f *ast.File) bool { return source.HasTopLevel(f, "container_type") }

// decodeContainerConfig reads a MedPerf container_config.yaml that has
// been parsed, as a cube named after its folder.
func decodeContainerConfig(sc *schema.Context, f *ast.File) (*Cube, diag.Diagnostics) {
	diags := source.CheckTree(f)
	if diags != nil {
		return nil, diags
	}
	doc, diags := checkDocument(sc, f, schema.ContainerConfig)
	if !doc.usable {
		return nil, diags
	}
	v := doc.data
	if kind := str(v, "container_type"); kind != "DockerImage" {
		return nil, append(diags, diag.Errorf(diag.NoImage, doc.at("container_type"),
			"%s cannot run on Kubernetes: a cluster pulls images from a registry", kind).
			WithFix("push the image to a registry and use container_type: DockerImage with image: <registry>/<name>:<tag>").
			WithDetail("A cluster cannot load an archive, run a Singularity file or decrypt an image."))
	}
	c := &Cube{Name: containerName(doc.file), File: doc.file, Image: str(v, "image"), Container: true}
	forFields(v.LookupPath(pathOf("tasks")), func(name string, tv cue.Value) {
		t := &Task{Name: name, Loc: doc.at("tasks", name)}
		t.Inputs = decodeVolumes(doc, tv, name, "input_volumes")
		t.Outputs = decodeVolumes(doc, tv, name, "output_volumes")
		var more diag.Diagnostics
		t.Run, t.Env, more = decodeRunArgs(doc, tv.LookupPath(pathOf("run_args")), t.Loc.Field("run_args"))
		diags = append(diags, more...)
		diags = append(diags, checkParamNames(t, t.Loc.Field("volumes"))...)
		c.Tasks = append(c.Tasks, t)
	})
	if len(c.Tasks) == 0 {
		return nil, append(diags, diag.Errorf(diag.BadShape, doc.at("tasks"), "a container needs at least one task"))
	}
	return c, diags
}

// containerName names a container after its folder, as MedPerf names
// none: the folder of data_preparator/container_config.yaml is
// data_preparator.
func containerName(file string) string {
	dir := path.Base(path.Dir(strings.ReplaceAll(file, `\`, "/")))
	if dir == "." || dir == "/" || dir == ".." {
		return "container"
	}
	return dir
}

// decodeVolumes reads a task's input or output volumes in the order they
// are written, each at its default location (volumeLocation).
func decodeVolumes(doc *document, task cue.Value, taskName, kind string) []*Param {
	var out []*Param
	forFields(task.LookupPath(pathOf(kind)), func(name string, pv cue.Value) {
		p := &Param{
			Name:      name,
			MountPath: str(pv, "mount_path"),
			Dir:       str(pv, "type") == "directory",
			Loc:       doc.at("tasks", taskName, kind, name),
		}
		p.Path = volumeLocation(name, p.MountPath, p.Dir)
		out = append(out, p)
	})
	return out
}

// volumeLocation is where a volume lives in the workspace when nothing
// says: its mount path, relative (/mlcommons/volumes/data is
// mlcommons/volumes/data/). MedPerf binds a volume to a host path only
// when it runs a task, and binds the same one to the volumes that share a
// mount path: its data preparation mounts one folder as prepare's
// output_path and as sanity_check's and statistics' data_path
// (cli/medperf/commands/dataset/prepare.py, run_prepare,
// run_sanity_check, run_statistics), which the container file mounts at
// /mlcommons/volumes/data each time, while prepare's data_path (the raw
// data) is at /mlcommons/volumes/raw_data. So the same mount path is the
// same data, and the volume's name, which MedPerf reuses across tasks
// for different data, is not. A mount path with nothing but slashes
// falls back to the name.
func volumeLocation(name, mountPath string, dir bool) string {
	loc := strings.TrimLeft(path.Clean("/"+mountPath), "/")
	if loc == "" {
		loc = name
	}
	if dir {
		return loc + "/"
	}
	return loc
}

// decodeRunArgs reads a task's run_args, at at.
func decodeRunArgs(doc *document, v cue.Value, at diag.Loc) (*RunArgs, []EnvVar, diag.Diagnostics) {
	r := &RunArgs{Entrypoint: str(v, "entrypoint"), GPUsLoc: at.Field("gpus")}
	var diags diag.Diagnostics
	var env []EnvVar
	if !v.Exists() {
		return r, nil, nil
	}
	cmd := v.LookupPath(pathOf("command"))
	if s, err := cmd.String(); err == nil {
		words, err := SplitWords(s)
		if err != nil {
			diags = append(diags, diag.Errorf(diag.BadCommand, at.Field("command"), "%v", err))
		}
		r.Command = words
	} else if list, err := cmd.List(); err == nil {
		for list.Next() {
			w, _ := list.Value().String()
			r.Command = append(r.Command, w)
		}
	}
	forFields(v.LookupPath(pathOf("environment")), func(name string, ev cue.Value) {
		env = append(env, EnvVar{Name: name, Value: scalarString(ev), Loc: at.Field("environment").Field(name)})
	})
	if g := v.LookupPath(pathOf("gpus")); g.Exists() {
		n, warn, err := containerGPUs(scalarString(g))
		switch {
		case err != "":
			diags = append(diags, diag.Errorf(diag.BadDockerFlags, r.GPUsLoc, "%s", err))
		case warn != "":
			diags = append(diags, diag.Warnf(diag.GPUsOfOneHost, r.GPUsLoc, "%s", warn))
		}
		r.GPUs = n
	}
	if s := v.LookupPath(pathOf("shm_size")); s.Exists() {
		r.Docker = DockerArgs{Text: "--shm-size=" + scalarString(s), Loc: at.Field("shm_size")}
	}
	return r, env, diags
}

// containerGPUs reads run_args.gpus as MedPerf's _normalize_gpu_arg does
// (cli/medperf/containers/runners/utils.py): a number, all, or
// device=ID,...; Kubernetes asks for a number of GPUs.
func containerGPUs(s string) (n int, warn, problem string) {
	switch {
	case s == "" || s == "0":
		return 0, "", ""
	case s == "all":
		return 1, `all asks for every GPU of a host, which Kubernetes cannot; the step asks for 1 (set the step's ` +
			`resources.gpu for more)`, ""
	case strings.HasPrefix(s, "device=") && s != "device=":
		ids := strings.Split(strings.TrimPrefix(s, "device="), ",")
		return len(ids), fmt.Sprintf("%s names devices of one host; the step asks for %d GPUs of whatever node runs it",
			s, len(ids)), ""
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, "", fmt.Sprintf("%q is not a number of GPUs, all or device=ID,...", s)
	}
	return n, "", ""
}
