package argo

import (
	"slices"
	"strings"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	apiv1 "k8s.io/api/core/v1"

	"github.com/mlcube-compile/mlcube-compile/backends/internal/kube"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
)

// A step that fetches or uploads (ir.Step's Fetches and Uploads) runs as
// a containerSet: Argo loads its input artifacts into the scratch folder
// before any container starts, a container named verifyName checks each
// one's sha256 and copies it into place, then the user's container runs,
// then, when the step uploads, the container named "main" records each
// output's sha256 in digestsPath. Once every container has ended, Argo's
// wait container reads the digests and the outputs through the volumes
// main mounts (addOutputArtifactsVolumes, workflow/controller/
// workflowpod.go; saveArtifact and saveParameter, cmd/argoexec/commands/
// emissary.go; v3.7.18, the same in v4.0.7). The emissary starts each
// container when the ones it names in dependencies have succeeded, and
// fails it when one of them failed.
const (
	// verifyName names the container that checks fetched data.
	verifyName = "verify"
	// runName names the user's container of a step that uploads, whose
	// "main" is the one that records the digests.
	runName = "run"
	// digestsVolume is an emptyDir of a pod that uploads, where the
	// sha256 of each upload is written, at digestsPath.
	digestsVolume = "mlcube-digests"
	digestsPath   = "/mlcube-digests"
)

// movesData says whether step s fetches or uploads.
func movesData(s *ir.Step) bool { return len(s.Fetches) > 0 || len(s.Uploads) > 0 }

// digestParam names the parameter that carries the sha256 of an upload
// or fetch named name: an output parameter of the uploading step, an
// input parameter of the fetching one.
func digestParam(name string) string { return name + "-sha256" }

// objectTemplate is the template of step s, which fetches or uploads:
// the template a step that does neither gets, its container in a
// containerSet between the containers that move data. Such a template
// is the step's alone: the keys of its uploads name the step.
func objectTemplate(p *ir.Pipeline, s *ir.Step, name string) wfv1.Template {
	t := template(p, s, name, nil)
	m := podMounts(p, s)
	user := wfv1.ContainerNode{Container: *t.Container}
	user.VolumeMounts = m.own(user.VolumeMounts)
	t.Container = nil
	set := &wfv1.ContainerSetTemplate{VolumeMounts: m.shared}
	if len(s.Fetches) > 0 {
		t.Volumes = append(t.Volumes, kube.ScratchVolumeSpec(p))
		set.VolumeMounts = append(set.VolumeMounts, apiv1.VolumeMount{Name: kube.ScratchVolume, MountPath: kube.ScratchPath})
		set.Containers = append(set.Containers, wfv1.ContainerNode{Container: verifyContainer(p, s, m)})
		user.Dependencies = []string{verifyName}
		t.Inputs = fetchInputs(p, s)
	}
	if len(s.Uploads) > 0 {
		user.Name = runName
		t.Volumes = append(t.Volumes,
			apiv1.Volume{Name: digestsVolume, VolumeSource: apiv1.VolumeSource{EmptyDir: &apiv1.EmptyDirVolumeSource{}}})
		set.VolumeMounts = append(set.VolumeMounts, apiv1.VolumeMount{Name: digestsVolume, MountPath: digestsPath})
		set.Containers = append(set.Containers, user,
			wfv1.ContainerNode{Container: digestContainer(p, s, m), Dependencies: []string{runName}})
		t.Outputs = uploadOutputs(p, s)
	} else {
		set.Containers = append(set.Containers, user)
	}
	t.ContainerSet = set
	return t
}

// mounts are the mounts of a step that fetches or uploads: shared, which
// every container of its set has (containerSet.volumeMounts), and
// the others, which each container has as it needs them.
type mounts struct {
	shared []apiv1.VolumeMount
	perPod map[string]bool
}

// podMounts shares each mount of step s that the step writes, of a whole
// volume of the pod's own: where its outputs are and its fetches land.
// Argo reads the outputs below a mount of containerSet.volumeMounts from
// its wait container; below any other, the emissary first tars them in
// the main container, at its small CPU limit (FindOverlappingVolume,
// workflow/common/util.go; saveArtifact, cmd/argoexec/commands/
// emissary.go; isBaseImagePath, workflow/executor/executor.go; v3.7.18).
func podMounts(p *ir.Pipeline, s *ir.Step) mounts {
	m := mounts{perPod: map[string]bool{}}
	for _, v := range p.Volumes {
		m.perPod[v.Name] = v.PerPod
	}
	for _, mt := range s.Mounts {
		if m.isShared(mt) {
			m.shared = append(m.shared, apiv1.VolumeMount{Name: mt.Volume, MountPath: mt.MountPath})
		}
	}
	// Argo puts into a containerSet's pod only the volumes that
	// containerSet.volumeMounts names (addVolumeReferences and
	// Template.GetVolumeMounts, workflow/controller/workflowpod.go and
	// pkg/apis/workflow/v1alpha1/workflow_types.go, v3.7.18 and v4.0.7):
	// a volume only some containers mount, read-only or in part, is
	// named there too, read-only at a path of its own.
	for _, mt := range s.Mounts {
		if !slices.ContainsFunc(m.shared, func(sh apiv1.VolumeMount) bool { return sh.Name == mt.Volume }) {
			m.shared = append(m.shared,
				apiv1.VolumeMount{Name: mt.Volume, MountPath: volumeRefPath + "/" + mt.Volume, ReadOnly: true})
		}
	}
	return m
}

// volumeRefPath is where a containerSet mounts, read-only, each volume
// only some of its containers mount, so that Argo puts it in the pod.
const volumeRefPath = "/mlcube-volumes"

// isShared says whether mt is one of the shared mounts.
func (m mounts) isShared(mt ir.Mount) bool {
	return m.perPod[mt.Volume] && !mt.ReadOnly && !mt.File && len(mt.SubPath) == 0
}

// own is vms without the shared mounts, which a container of the set
// gets from containerSet.volumeMounts: a path mounted twice in a
// container is refused.
func (m mounts) own(vms []apiv1.VolumeMount) []apiv1.VolumeMount {
	var out []apiv1.VolumeMount
	for _, vm := range vms {
		if !slices.ContainsFunc(m.shared, func(sh apiv1.VolumeMount) bool { return sh.MountPath == vm.MountPath }) {
			out = append(out, vm)
		}
	}
	return out
}

// toolContainer runs script in the platform's tool image, with args,
// mounting what step s mounts beside the shared mounts, each read-only
// when readOnly says, as sc says. Argo needs the command of every container of a
// containerSet, or looks it up in the image's registry
// (createWorkflowPod, workflow/controller/workflowpod.go, v3.7.18).
// It asks for what Tekton's and a Job's movers ask for
// (kube.MoverResources): verify hashes and copies every fetch, and main
// hashes every upload, while the pod holds the step's GPUs, so neither
// is held to a small CPU limit. Argo gives each container of a
// containerSet the resources it writes, over the controller's
// mainContainer defaults, and its own init and wait containers, which
// load and save the artifacts, the controller's executor.resources
// (createWorkflowPod and newExecContainer, workflowpod.go, v3.7.18 and
// v4.0.7), none of them ours to limit.
func toolContainer(p *ir.Pipeline, s *ir.Step, m mounts, name, script string, args []string,
	readOnly func(ir.Mount) bool, sc *apiv1.SecurityContext) apiv1.Container {
	c := apiv1.Container{
		Name:            name,
		Image:           toolImage(p),
		ImagePullPolicy: apiv1.PullPolicy(s.ImagePullPolicy),
		Command:         []string{"sh", "-c", script, name},
		Args:            args,
		Resources:       kube.MoverResources(p),
		SecurityContext: sc,
	}
	for _, mt := range s.Mounts {
		if !m.isShared(mt) {
			c.VolumeMounts = append(c.VolumeMounts, apiv1.VolumeMount{Name: mt.Volume, MountPath: mt.MountPath,
				SubPath: mt.SubPath.Render(parameterRef), ReadOnly: readOnly(mt)})
		}
	}
	return c
}

// toolImage is the image of the containers that move data: the
// platform's objectStore.toolImage, or the compiler's default, which
// lowering gives every run that moves data (a run of only HTTP(S)
// inputs too); the kubectl image, which has a shell and sha256sum, only
// for an IR made otherwise.
func toolImage(p *ir.Pipeline) string {
	if p.ObjectStore != nil && p.ObjectStore.ToolImage != "" {
		return p.ObjectStore.ToolImage
	}
	return p.KubectlImage
}

// verifyContainer checks each of step s's fetches and copies it into
// place (kube.VerifyScript). It writes where the step's container
// reads: a mount is read-only only when the step's is, on a volume
// shared beyond the pod (a claim), and no fetch lands below it.
func verifyContainer(p *ir.Pipeline, s *ir.Step, m mounts) apiv1.Container {
	var args []string
	for _, f := range s.Fetches {
		want := ""
		switch {
		case f.From != nil:
			want = "{{inputs.parameters." + digestParam(f.Name) + "}}"
		case f.URL != nil:
			want = f.URL.SHA256
		}
		args = append(args, f.Name, kube.ScratchOf(f), want, kube.VerifyDest(f, parameterRef))
	}
	return toolContainer(p, s, m, verifyName, kube.VerifyScript, args, func(mt ir.Mount) bool {
		return mt.ReadOnly && !m.perPod[mt.Volume] && !fetchesBelow(s, mt.MountPath)
	}, kube.WriterSecurity(p, s.SecurityContext))
}

// fetchesBelow says whether one of step s's fetches lands at or below
// mountPath.
func fetchesBelow(s *ir.Step, mountPath string) bool {
	for _, f := range s.Fetches {
		dest := render(f.Path)
		if dest == mountPath || strings.HasPrefix(dest, strings.TrimSuffix(mountPath, "/")+"/") {
			return true
		}
	}
	return false
}

// digestContainer records the sha256 of each of step s's uploads
// (kube.DigestScript) in digestsPath; it reads what the step's
// container wrote, so it mounts read-only all but the shared mounts.
func digestContainer(p *ir.Pipeline, s *ir.Step, m mounts) apiv1.Container {
	var args []string
	for _, u := range s.Uploads {
		args = append(args, u.Name, u.Path.RenderContainer(parameterRef), digestsPath+"/"+u.Name)
	}
	c := toolContainer(p, s, m, containerName, kube.DigestScript, args, func(ir.Mount) bool { return true },
		kube.HelperSecurity(p, s.SecurityContext))
	if s.Retry != nil {
		c.Command, c.Args = kube.Sequence(
			kube.Phase{Name: "digest", Script: kube.DigestScript, Items: args},
			kube.Phase{Name: "attempt", Script: attemptScript, Items: []string{"{{retries}}", attemptPath}},
		)
	}
	return c
}

// attemptScript writes the attempt's number (uploadKey) to a file.
const attemptScript = `printf '%s' "$1" >"$2"
`

// foldersInit is the init container that makes step s's folders
// (kube.FoldersContainer), and, when s fetches, the scratch folder of
// each fetched folder that Argo loaded nothing into (an empty one:
// fetchArguments). Argo runs it after its own init container loaded the
// step's artifacts (addInitContainers, workflow/controller/
// workflowpod.go, v3.7.18). A path of a template shared by steps is its
// input parameter where they differ (varying). Nil when it has nothing
// to make.
func foldersInit(p *ir.Pipeline, s *ir.Step, varying map[string]bool) *apiv1.Container {
	render := func(f ir.Folder) string {
		if varying[f.Param] {
			return "{{inputs.parameters." + f.Param + "}}"
		}
		return renderContainer(f.Path)
	}
	folders := *s
	mounts := kube.VolumeMounts(s, parameterRef)[:len(s.Mounts)]
	for _, f := range s.Fetches {
		if f.From != nil && kube.Uploaded(p, *f.From).Folder {
			folders.Folders = append(folders.Folders, ir.Folder{Path: ir.Lit(kube.ScratchOf(f))})
		}
	}
	if len(folders.Folders) > len(s.Folders) {
		mounts = append(mounts, apiv1.VolumeMount{Name: kube.ScratchVolume, MountPath: kube.ScratchPath})
	}
	return kube.FoldersContainer(p, &folders, mounts, render)
}
