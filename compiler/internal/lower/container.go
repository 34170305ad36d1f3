package lower

import (
	"cmp"
	"fmt"
	"path"
	"strings"

	"github.com/mlcube-compile/mlcube-compile/compiler/graph"
	"github.com/mlcube-compile/mlcube-compile/compiler/internal/spec"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// containerVolumes builds what MedPerf's docker runner runs for a task of
// a container_config.yaml (craft_docker_run_command and
// volumes_to_cli_args, cli/medperf/containers/runners/docker_utils.py of
// mlcommons/medperf): run_args.entrypoint in place of the image's, the
// words of run_args.command as its arguments, then the step's own args,
// and each volume mounted at its mount_path from the workspace claim,
// inputs read-only (MedPerf's :ro) and outputs writable. No --name=path
// arguments: the container finds its volumes where they are mounted.
func (sl *stepLowering) containerVolumes() ([]string, []ir.Arg, []ir.Mount, graph.IO) {
	t := sl.st.Task
	var command []string
	if t.Run.Entrypoint != "" {
		command = []string{t.Run.Entrypoint}
	}
	var args []ir.Arg
	for _, w := range t.Run.Command {
		args = append(args, ir.Arg{Value: ir.Lit(w)})
	}
	args = append(args, sl.stepArgs()...)
	sl.diags = append(sl.diags, taskMountPaths(t)...)
	vm := volumeMounts{names: newNameSet(), at: map[string]int{}}
	var io graph.IO
	for _, p := range t.Inputs {
		if rel, ok := sl.volumeMount(p, "inputs", &vm); ok {
			io.Reads = append(io.Reads, graph.Qualify(workspaceVolume, rel))
		}
	}
	for _, p := range t.Outputs {
		if rel, ok := sl.volumeMount(p, "outputs", &vm); ok {
			io.Writes = append(io.Writes, graph.Qualify(workspaceVolume, rel))
		}
	}
	return command, args, vm.mounts, io
}

// volumeMounts are a step's mounts so far: their names, the index of
// the mount at each mount path, and each one's volume's own mount_path.
type volumeMounts struct {
	mounts []ir.Mount
	names  *nameSet
	at     map[string]int
	of     []string
}

// volumeMount mounts a task's volume of kind (inputs or outputs) where
// the step's override, else its default, puts it in the workspace, and
// returns that path. A folder or an input file is mounted as its
// subPath; an output file by its folder, since the kubelet makes a
// subPath that is not there yet a folder (makeMounts,
// pkg/kubelet/kubelet_pods.go of kubernetes/kubernetes), where MedPerf
// creates the empty file first.
func (sl *stepLowering) volumeMount(p *spec.Param, kind string, vm *volumeMounts) (string, bool) {
	st := sl.st
	raw, at, parse := p.Path, p.Loc, ir.Lit
	if own := st.CubeInputs[p.Name]; kind == "inputs" && own != "" {
		raw = own // the cube's own file, under its name (spec's keepCubeInputs)
	}
	rel := cleanKeepParams(raw)
	if override := overrideOf(st, kind, p.Name); override != "" {
		raw, at, rel = override, st.Loc.Field(kind).Field(p.Name), cleanKeepParams(override)
		// Its references are read once, in the whole path; the folder
		// mounted is a part of it.
		sl.text(cmp.Or(rel, raw), at)
		parse = func(s string) ir.Text {
			t, _ := sl.refs.parse(s, nil, sl.noParams)
			return t
		}
	}
	if isURL(raw) {
		sl.urlVolume(p, raw, kind, at, vm)
		return "", false
	}
	switch {
	case strings.HasPrefix(raw, "/"):
		sl.diags = append(sl.diags, diag.Errorf(diag.BadVolumeMount, at,
			"%q is absolute: a volume is mounted from the workspace claim", raw).
			WithFix("write its location as a path in the workspace, such as "+strings.TrimLeft(raw, "/")))
		return "", false
	case rel == ".." || strings.HasPrefix(rel, "../"):
		sl.diags = append(sl.diags, diag.Errorf(diag.BadVolumeMount, at,
			"%q leaves the workspace; a volume is mounted from inside the workspace claim", raw))
		return "", false
	}
	m := ir.Mount{Volume: sl.workspace(), MountPath: path.Clean(p.MountPath), ReadOnly: kind == "inputs"}
	sub := rel
	if kind == "outputs" && !p.Dir {
		dir, file := path.Split(rel)
		switch {
		case file != path.Base(m.MountPath):
			sl.diags = append(sl.diags, diag.Errorf(diag.BadVolumeMount, at,
				"an output file's location must end in %q, the file name of its mount_path", path.Base(m.MountPath)).
				WithDetail("Its mount_path is %s. An output file is mounted by its folder: the kubelet would make a file "+
					"that is not there yet a folder.", p.MountPath))
			return "", false
		case path.Dir(m.MountPath) == "/":
			// MedPerf's own test containers write /medperf_results.yaml:
			// the file is mounted itself, created first (ir.Mount.File).
			m.File = true
		default:
			sub, m.MountPath = strings.TrimSuffix(dir, "/"), path.Dir(m.MountPath)
		}
	}
	if sub != "" {
		m.SubPath = parse(sub)
	}
	if vm.add(sl.lowering, m, p, at) {
		seen := ir.Lit(path.Clean(p.MountPath))
		sl.recordPath(p, raw, rel, seen, kind == "outputs", at, len(vm.mounts)-1)
	}
	return rel, true
}

// urlVolume mounts the folder a MedPerf input volume given as a URL is
// fetched into, read-only at its mount path.
func (sl *stepLowering) urlVolume(p *spec.Param, raw, kind string, at diag.Loc, vm *volumeMounts) {
	if kind == "inputs" && !p.Dir {
		// Its file would be mounted by itself, which the kubelet does
		// when the pod starts, before any fetch: it would make a folder.
		where := "in the workspace (the claim the platform's storage.pvc names)"
		if sl.plat.Storage.Object() {
			where = "on the claim the platform's storage.pvc names (with storage.workspace: object, the inputs no step writes " +
				"are mounted from it)"
		}
		sl.diags = append(sl.diags, diag.Errorf(diag.BadURL, at,
			"%q: volume %s is a file, mounted by itself when the pod starts", raw, p.Name).
			WithFix(fmt.Sprintf("give a folder volume the URL, or give %s a path %s and put the file there", p.Name, where)).
			WithDetail("A file volume is mounted before anything is fetched, so no URL can fill it."))
		return
	}
	dir, file, ok := sl.urlInput(p.Name, raw, kind, at)
	if !ok {
		return
	}
	mp := path.Clean(p.MountPath)
	f := &sl.data.fetches[len(sl.data.fetches)-1]
	f.Path = ir.Lit(mp)
	if file != dir {
		f.Path = ir.Lit(path.Join(mp, path.Base(file)))
	}
	sub := strings.TrimPrefix(dir, sl.fetchRoot()+"/")
	vm.add(sl.lowering, ir.Mount{Volume: ir.FetchedVolume, MountPath: mp, SubPath: ir.Lit(sub), ReadOnly: true}, p, at)
}

// add keeps m, unless a mount at its mount path is there already: the
// same one is kept once, another is an error at at. Two volumes written
// at one mount_path are taskMountPaths's error; here it is the folder an
// output file is mounted by that meets another.
// It says whether m was added.
func (vm *volumeMounts) add(lw *lowering, m ir.Mount, p *spec.Param, at diag.Loc) bool {
	if i, ok := vm.at[m.MountPath]; ok {
		same := vm.mounts[i]
		if vm.of[i] == path.Clean(p.MountPath) {
			return false
		}
		if render(same.SubPath) != render(m.SubPath) || same.ReadOnly != m.ReadOnly {
			other := vm.names.taken[vm.mounts[i].Name]
			if m.MountPath != path.Clean(p.MountPath) {
				lw.diags = append(lw.diags, diag.Errorf(diag.BadVolumeMount, at,
					"an output file is mounted by its folder, and volume %s is mounted at %s already", other, m.MountPath).
					WithFix(fmt.Sprintf("give %s a folder of its own", path.Base(p.MountPath))).
					WithDetail("The kubelet would make a file that is not there yet a folder, so an output file is mounted "+
						"by its folder."))
				return false
			}
			lw.diags = append(lw.diags, diag.Errorf(diag.BadVolumeMount, at,
				"volume %s is mounted at %s, where volume %s is mounted", p.Name,
				m.MountPath, other))
		}
		return false
	}
	name, ok := vm.names.take(p.Name, p.Name)
	if !ok {
		name, _ = vm.names.take(p.Name, "volume")
	}
	m.Name = name
	vm.at[m.MountPath] = len(vm.mounts)
	vm.mounts = append(vm.mounts, m)
	vm.of = append(vm.of, path.Clean(p.MountPath))
	return true
}

// overrideOf is the step's location for a task's volume, if it gives one.
func overrideOf(st *spec.Step, kind, name string) string {
	if kind == "inputs" {
		return st.Inputs[name]
	}
	return st.Outputs[name]
}

// render writes t with its references as ${params.X}, to compare texts.
func render(t ir.Text) string {
	return t.Render(func(p string) string { return "${params." + p + "}" })
}

// taskMountPaths refuses two volumes of a MedPerf task at one mount
// path, as docker run refuses a duplicate mount point: each volume is
// data of its own, and where it lives in the workspace defaults to its
// mount path (spec's volumeLocation).
func taskMountPaths(t *spec.Task) diag.Diagnostics {
	var diags diag.Diagnostics
	at := map[string]string{}
	for _, p := range append(append([]*spec.Param{}, t.Inputs...), t.Outputs...) {
		mp := path.Clean(p.MountPath)
		if other, ok := at[mp]; ok {
			diags = append(diags, diag.Errorf(diag.BadVolumeMount, p.Loc,
				"volume %s is mounted at %s, where volume %s is mounted", p.Name, mp, other))
			continue
		}
		at[mp] = p.Name
	}
	return diags
}
