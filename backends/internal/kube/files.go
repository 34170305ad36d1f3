package kube

import (
	"path"

	corev1 "k8s.io/api/core/v1"

	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
)

// FilesRoot is where the container that creates a step's files
// (CreateFiles) mounts each volume, under its name.
const FilesRoot = "/mlcube-files"

// createFilesScript makes each file given as an argument, and its folder,
// unless it is there: an empty file, as MedPerf makes an output file
// before it binds it. No $(...): Kubernetes and Tekton would read it.
// What it makes anyone may write (umask 0): it runs as a user of its
// own (WriterSecurity), which may not be the step's.
const createFilesScript = `umask 0; for f do mkdir -p "${f%/*}" && { [ -e "$f" ] || : >"$f"; } || exit 1; done`

// CreateFilesName names the container, or Tekton's task, that creates a
// step's files.
const CreateFilesName = "create-files"

// CreateFiles is the container that creates, before the step's own
// container starts, each file the step mounts itself (ir.Mount.File)
// and its volume lacks: the kubelet would make a missing subPath a
// folder (makeMounts, pkg/kubelet/kubelet_pods.go of
// kubernetes/kubernetes). It runs p's kubectl image, which has a shell,
// as WriterSecurity says, with each volume at FilesRoot/<volume>; ref
// writes a pipeline parameter in a subPath. Nil when the step mounts no
// file.
func CreateFiles(p *ir.Pipeline, s *ir.Step, ref func(param string) string) *corev1.Container {
	var files []string
	var mounts []corev1.VolumeMount
	seen := map[string]bool{}
	for _, m := range s.Mounts {
		if !m.File {
			continue
		}
		dir := path.Join(FilesRoot, m.Volume)
		if !seen[m.Volume] {
			seen[m.Volume] = true
			mounts = append(mounts, corev1.VolumeMount{Name: m.Volume, MountPath: dir})
		}
		files = append(files, dir+"/"+m.SubPath.Render(ref))
	}
	if len(files) == 0 {
		return nil
	}
	return &corev1.Container{
		Name:            CreateFilesName,
		Image:           p.KubectlImage,
		ImagePullPolicy: corev1.PullPolicy(s.ImagePullPolicy),
		Command:         []string{"sh", "-c", createFilesScript, CreateFilesName},
		Args:            files,
		VolumeMounts:    mounts,
		Resources:       Resources(HelperResources()),
		SecurityContext: WriterSecurity(p, s.SecurityContext),
	}
}

// FoldersName names the container, or Tekton's step, that makes a
// step's folders when no container that fetches its data does.
const FoldersName = "folders"

// FoldersScript makes folders, as MLCube makes them on the host before
// it runs a task (generate_mounts_and_args, mlcube/shell.py: each
// output folder, and the folder of each output file): the program may
// write into them without making them. Its items are two words each:
// folder (make the path) or file (make its folder), and the path as the
// step's container sees it. Each folder it makes is writable by every
// user, as an emptyDir is: the program may run as a user of its image
// other than this container's; a folder already there is left as it is.
const FoldersScript = `set -eu
while [ $# -ge 2 ]; do
  kind=$1 p=$2; shift 2
  [ "$kind" = folder ] || p=$(dirname "$p")
  top=$p
  while [ ! -e "$top" ]; do top=$(dirname "$top"); done
  mkdir -p "$p"
  while [ "$p" != "$top" ]; do chmod 0777 "$p"; p=$(dirname "$p"); done
done
`

// FolderItems are the items of FoldersScript for s's Folders, each path
// written by path.
func FolderItems(s *ir.Step, path func(ir.Folder) string) []string {
	var out []string
	for _, f := range s.Folders {
		kind := "folder"
		if f.File {
			kind = "file"
		}
		out = append(out, kind, path(f))
	}
	return out
}

// FoldersContainer makes s's Folders (FoldersScript) in p's kubectl
// image, as the user that writes where s does (WriterSecurity), mounting
// mounts, the step's own mounts; path writes each Folder's path. Nil
// when s has none.
func FoldersContainer(p *ir.Pipeline, s *ir.Step, mounts []corev1.VolumeMount,
	path func(ir.Folder) string) *corev1.Container {
	items := FolderItems(s, path)
	if len(items) == 0 {
		return nil
	}
	return &corev1.Container{
		Name:            FoldersName,
		Image:           p.KubectlImage,
		ImagePullPolicy: corev1.PullPolicy(s.ImagePullPolicy),
		Command:         []string{"sh", "-c", ir.KubeLiteral(FoldersScript), FoldersName},
		Args:            items,
		VolumeMounts:    mounts,
		Resources:       Resources(HelperResources()),
		SecurityContext: WriterSecurity(p, s.SecurityContext),
	}
}
