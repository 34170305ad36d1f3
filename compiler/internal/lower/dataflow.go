package lower

import (
	"path"
	"slices"
	"strings"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/spec"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// stepData is what one step fetches and reads and writes, gathered while
// its parameters are lowered.
type stepData struct {
	names   *nameSet
	fetches []ir.Fetch
	// paths are the workspace paths the step reads and writes, in the
	// order its parameters are lowered.
	paths []dataPath
	// folders are the output paths of its args (ir.Step.Folders).
	folders []ir.Folder
}

// dataPath is a path of the workspace a step reads or writes: rel on the
// workspace, and where the step's container sees it.
type dataPath struct {
	param string
	rel   string
	// folder says the path is a folder: its parameter's type is
	// directory, or it is written with a trailing /.
	folder bool
	seen   ir.Text
	write  bool
	at     diag.Loc
	// mount is the index in the step's mounts of the mount that puts rel
	// at seen (a MedPerf volume's), or -1 for the whole workspace.
	mount int
}

// fetchRoot is where a step's URL inputs are mounted.
func (lw *lowering) fetchRoot() string { return lw.mountPath + "-fetched" }

// sizedClaim is a copy of lw.sized, or nil.
func (lw *lowering) sizedClaim() *ir.ClaimTemplate {
	if lw.sized == nil {
		return nil
	}
	c := *lw.sized
	c.AccessModes = slices.Clone(c.AccessModes)
	return &c
}

// urlInput lowers an input written as a URL at at: its fetch into the
// fetched volume, in a folder named for the parameter, and the path the
// container reads it at (the folder, or the file in it). ok is false
// when the URL is refused.
func (sl *stepLowering) urlInput(param, raw, kind string, at diag.Loc) (dir string, file string, ok bool) {
	if kind == "outputs" {
		sl.diags = append(sl.diags, diag.Errorf(diag.URLNotWritable, at, "%q is a URL, which a step reads and never writes",
			raw).
			WithFix("give the output a path in the workspace (with storage.workspace: object, outputs are uploaded to the "+
				"object store)"))
		return "", "", false
	}
	u, diags := parseURL(raw, at, sl.p.ObjectStore)
	sl.diags = append(sl.diags, diags...)
	if u == nil {
		return "", "", false
	}
	name, _ := sl.data.names.take(param, param, "input")
	dir = path.Join(sl.fetchRoot(), name)
	file = dir
	if !u.Folder {
		file = path.Join(dir, path.Base(strings.TrimSuffix(u.Raw, "/")))
		if u.Scheme == "s3" {
			file = path.Join(dir, path.Base(u.Key))
		}
	}
	sl.volumes[ir.FetchedVolume] = ir.Volume{Name: ir.FetchedVolume, PerPod: true, Ephemeral: sl.sizedClaim()}
	sl.data.fetches = append(sl.data.fetches, ir.Fetch{Name: name, URL: u, Path: ir.Lit(file)})
	return dir, file, true
}

// recordPath notes a workspace path the step being lowered reads or
// writes, for an object workspace's fetches and uploads.
func (sl *stepLowering) recordPath(p *spec.Param, raw, rel string, seen ir.Text, write bool, at diag.Loc, mount int) {
	folder := p.Dir || strings.HasSuffix(raw, "/") || rel == ""
	sl.data.paths = append(sl.data.paths,
		dataPath{param: p.Name, rel: rel, folder: folder, seen: seen, write: write, at: at, mount: mount})
}

// overlaps says whether two workspace paths touch the same data: the
// same path, or one inside the other ("" is the root).
func overlaps(a, b string) bool {
	return a == b || a == "" || b == "" || strings.HasPrefix(a, b+"/") || strings.HasPrefix(b, a+"/")
}

// inside returns p relative to folder dir, which holds it.
func inside(dir, p string) string {
	if dir == "" {
		return p
	}
	return strings.TrimPrefix(strings.TrimPrefix(p, dir), "/")
}

// join appends a relative path to a path as the container sees it.
func (r *paramRefs) join(seen ir.Text, rel string) ir.Text {
	if rel == "" {
		return seen
	}
	t, _ := r.parse(rel, nil, "")
	return mergeLiterals(append(append(ir.Text{}, seen...), append(ir.Lit("/"), t...)...))
}
