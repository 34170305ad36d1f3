package tekton

import (
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	tektonpaths "github.com/tektoncd/pipeline/pkg/apis/pipeline"
	corev1 "k8s.io/api/core/v1"

	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// Tekton mounts an emptyDir at /workspace (tektonpaths.WorkspaceDir) in every
// step, "so they can be overridden by the user": a step's own mount at
// that path replaces it (implicitVolumeMounts and the loop that adds them
// to each step, pkg/pod/pod.go, v1.15.0). It hides the image's own
// /workspace, where MLCube's template keeps a cube's program. A step
// whose program lives there mounts its image's /workspace as an image
// volume, read-only: the whole image is the volume, and subPath picks
// its folder (ImageVolume, GA and always on in Kubernetes 1.36,
// pkg/features/kube_features.go, on by default since 1.35; the runtime
// must serve it too: containerd 2.1, CRI-O 1.31).
const (
	imageWorkspaceNamed  = "named"
	imageWorkspaceAlways = "always"
	imageWorkspaceNone   = "none"
	// imageWorkspaceVolume is the task's volume of the step's image.
	imageWorkspaceVolume = "image-workspace"
)

// inWorkspace finds a path in /workspace in a command or argument: the
// path alone, after = or :, or in a shell line.
var inWorkspace = regexp.MustCompile(`(^|[\s='":;])` + regexp.QuoteMeta(tektonpaths.WorkspaceDir) + `(/|$|[\s'";])`)

// relativeScript is a script named relative to the image's working
// directory, which the spec does not give (pytorch/pytorch's is
// /workspace).
var relativeScript = regexp.MustCompile(`^[^/$-][^\s]*\.(py|sh|R|jl)$`)

// namesWorkspace is the first command word or argument of step s that
// names a path in /workspace, or "".
func namesWorkspace(s *ir.Step) string {
	words := slices.Clone(s.Command)
	for _, a := range s.Args {
		words = append(words, a.Prefix+a.Value.Render(func(string) string { return "" }))
	}
	for _, w := range words {
		if inWorkspace.MatchString(w) {
			return w
		}
	}
	return ""
}

// programImages keep their program in /workspace and run it as their
// entrypoint; workdirImages have /workspace for their working directory,
// where a script named relative to it lives. Each from its Dockerfile:
// mlcommons/mlcube_examples at 4c52d41 (hello_world, fets/metrics,
// fets/preprocessing, mnist_fl/pytorch) and at 2ff82c1, in the MLCube 1.0
// layout (hello_world's build/Dockerfile, its image named by
// platforms/docker.yaml), and pytorch/pytorch's
// (docker/pytorch/Dockerfile, WORKDIR /workspace).
var (
	programImages = []string{"mlcommons/hello_world", "mlcommons/fets_metrics", "mlcommons/fets_preprocessing",
		"mlcommons/mnist_fl_pytorch",
		"mlperf/mlbox_hello_world"}
	workdirImages = []string{"pytorch/pytorch", "mlcommons/fets_metrics", "mlcommons/fets_preprocessing"}
)

// knownImage says whether image is one of names, at any tag or digest,
// on Docker Hub.
func knownImage(image string, names []string) bool {
	repo := strings.TrimPrefix(strings.TrimPrefix(image, "docker.io/"), "index.docker.io/")
	if i := strings.IndexAny(repo, "@"); i >= 0 {
		repo = repo[:i]
	}
	if i := strings.LastIndex(repo, ":"); i > strings.LastIndex(repo, "/") {
		repo = repo[:i]
	}
	return slices.Contains(names, repo)
}

// relativeProgram says whether step s runs a script named relative to
// its image's working directory.
func relativeProgram(s *ir.Step) bool {
	return slices.ContainsFunc(s.Command, relativeScript.MatchString)
}

// programInWorkspace says whether step s's program lives in /workspace,
// as far as the spec and the images the compiler knows say.
func programInWorkspace(s *ir.Step) bool {
	switch {
	case namesWorkspace(s) != "":
		return true
	case len(s.Command) == 0:
		return knownImage(s.Image, programImages)
	}
	return relativeProgram(s) && knownImage(s.Image, workdirImages)
}

// programUnseen says whether the spec does not say where step s's
// program lives: a script relative to the working directory of an
// image the compiler does not know. A step that runs its image's own
// entrypoint is not warned about (nearly every cube does, and most
// images keep their program elsewhere); docs/backends.md says so.
func programUnseen(s *ir.Step) bool {
	return !programInWorkspace(s) && relativeProgram(s)
}

// mountsImageWorkspace says whether step s's container mounts its
// image's /workspace.
func mountsImageWorkspace(p *ir.Pipeline, s *ir.Step) bool {
	if s.Kind != ir.Container {
		return false
	}
	switch settingsOf(p).ImageWorkspace {
	case imageWorkspaceAlways:
		return true
	case imageWorkspaceNone:
		return false
	}
	return programInWorkspace(s)
}

// imageWorkspace adds to the mounts of s's step and the task's volumes
// the image volume of s's image at /workspace, when s mounts it.
func imageWorkspace(p *ir.Pipeline, s *ir.Step, mounts *[]corev1.VolumeMount, volumes []corev1.Volume) []corev1.Volume {
	if !mountsImageWorkspace(p, s) {
		return volumes
	}
	*mounts = append(*mounts, corev1.VolumeMount{
		Name: imageWorkspaceVolume, MountPath: tektonpaths.WorkspaceDir,
		SubPath: strings.TrimPrefix(tektonpaths.WorkspaceDir, "/"), ReadOnly: true,
	})
	return append(volumes, corev1.Volume{Name: imageWorkspaceVolume, VolumeSource: corev1.VolumeSource{
		Image: &corev1.ImageVolumeSource{Reference: s.Image, PullPolicy: corev1.PullPolicy(s.ImagePullPolicy)},
	}})
}

// workspaceRefusals refuse what Tekton would hide: a step whose program
// lives in /workspace on a cluster that serves no image volumes, and a
// mount of a step inside the image's /workspace, which is read-only.
func workspaceRefusals(p *ir.Pipeline) diag.Diagnostics {
	var out diag.Diagnostics
	for _, s := range p.Steps {
		if s.Kind != ir.Container {
			continue
		}
		named := strconv.Quote(namesWorkspace(s))
		if named == `""` && programInWorkspace(s) {
			named = "the entrypoint of image " + s.Image
		}
		if named != `""` && settingsOf(p).ImageWorkspace == imageWorkspaceNone {
			out = append(out, diag.Errorf(diag.WorkspaceHidden, s.Loc,
				"step %s runs %s, in /workspace, which Tekton hides, and the platform says it mounts no image volumes", s.Name,
				named).
				WithFix("move the program out of /workspace in the image and name it in the task's entrypoint, run the "+
					"pipeline with --backend argo or job, or, on Kubernetes 1.35 or later with containerd 2.1 or CRI-O 1.31 or "+
					"later, drop imageWorkspace: none so that the step mounts its image's /workspace").
				WithDetail("Tekton mounts an emptyDir at /workspace in every step, hiding the image's own; the platform says "+
					"the cluster mounts no image volumes (tekton: {imageWorkspace: none})."))
			continue
		}
		if !mountsImageWorkspace(p, s) {
			continue
		}
		for _, m := range s.Mounts {
			if m.MountPath == tektonpaths.WorkspaceDir ||
				strings.HasPrefix(path.Clean(m.MountPath), tektonpaths.WorkspaceDir+"/") {
				out = append(out, diag.Errorf(diag.WorkspaceHidden, s.Loc,
					"step %s mounts %s at %s, inside its image's /workspace, which it mounts read-only", s.Name, m.Volume,
					m.MountPath).
					WithFix("mount the workspace elsewhere (storage.mountPath, such as /mnt/mlcube), or move the program out "+
						"of /workspace in the image").
					WithDetail("The step mounts its image's /workspace, read-only, to run its program there, past the "+
						"emptyDir Tekton mounts at /workspace."))
			}
		}
	}
	return out
}

// workspaceWarnings say which images run their own entrypoint, whose
// program Tekton hides if it lives in /workspace, once an image, at its
// first step.
func workspaceWarnings(p *ir.Pipeline) diag.Diagnostics {
	if iw := settingsOf(p).ImageWorkspace; iw == imageWorkspaceAlways || iw == imageWorkspaceNone {
		return nil
	}
	var out diag.Diagnostics
	steps := map[string][]string{}
	var first []*ir.Step
	for _, s := range p.Steps {
		if s.Kind != ir.Container || !programUnseen(s) {
			continue
		}
		if steps[s.Image] == nil {
			first = append(first, s)
		}
		steps[s.Image] = append(steps[s.Image], s.Name)
	}
	for _, s := range first {
		out = append(out, diag.Warnf(diag.TektonWorkspaceUnseen, s.Loc,
			"%s %s %s, which Tekton's /workspace may hide", stepWord(steps[s.Image]), strings.Join(steps[s.Image], ", "),
			unseenWhat(s, len(steps[s.Image]) == 1)).
			WithFix("if that is /workspace (pytorch/pytorch's is), set tekton: {imageWorkspace: always} on the platform, or "+
				"name the program in the task's entrypoint; if not, imageWorkspace: none silences this").
			WithDetail("Tekton mounts an emptyDir at /workspace in every step, hiding the image's own; imageWorkspace: "+
				"always mounts each step's image's /workspace as an image volume."))
	}
	return out
}

// stepWord is "step" or "steps", for names.
func stepWord(names []string) string {
	if len(names) == 1 {
		return "step"
	}
	return "steps"
}

// unseenWhat says what step s (and those of its image) runs that the
// compiler cannot see.
func unseenWhat(s *ir.Step, one bool) string {
	run := "run"
	if one {
		run = "runs"
	}
	return run + " a script relative to the working directory of image " + s.Image
}
