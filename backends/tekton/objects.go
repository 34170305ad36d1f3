package tekton

import (
	"fmt"
	"path"
	"strings"

	v1 "github.com/tektoncd/pipeline/pkg/apis/pipeline/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/mlcube-compile/mlcube-compile/backends/internal/kube"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// Tekton has no data artifacts (its Artifacts are metadata, and alpha),
// so a step's data moves in steps of its own task, in the platform's
// tool image: a fetch step before the user's, which fetches each input
// into the scratch folder and checks its sha256, and an upload step
// after it, which records each output's sha256 as a task result and
// uploads it. The steps of a task share its volumes (taskSpec.volumes,
// pod volumes mounted by each step's volumeMounts: pkg/pod/pod.go), so
// a volume each pod has of its own (ir.Volume.PerPod) is one of them,
// never a workspace: Tekton's affinity assistant places only the
// TaskRuns that bind a claim (pkg/reconciler/pipelinerun/affinity_assistant.go),
// so a run whose volumes are all per pod has none, and its tasks land
// anywhere.

const (
	// fetchStep and uploadStep name the steps that move a task's data.
	fetchStep  = "fetch"
	uploadStep = "upload"
	// runID is the run's id as a task refers to it; Tekton replaces it
	// in every task of the run (pkg/reconciler/pipelinerun/resources/apply.go:394).
	runID = "$(context.pipelineRun.uid)"
	// uidLength is the length of a Kubernetes uid, which runID becomes.
	uidLength = 36
	// messageLimit is what one container may write to its termination
	// message, where a task's results go: the last step's entrypoint
	// writes every result file there, as JSON (pkg/termination/write.go:33-35).
	messageLimit = 4096
	// podMessageLimit is what the kubelet keeps of the termination
	// messages of a pod's containers, init containers counted, each cut
	// to an even share of it (normalizeStatus,
	// pkg/kubelet/status/status_manager.go; MaxPodTerminationMessageLogLength,
	// pkg/kubelet/container/runtime.go; kubernetes v1.36.3): past that
	// share the results are cut mid-JSON, and no later task resolves them
	// (tektoncd/pipeline#4808).
	podMessageLimit = 12 * 1024
	// tektonShare is kept for what Tekton writes there too (StartedAt,
	// and when a step fails, ExitCode and Reason).
	tektonShare = 256
)

// wantRef refers to the sha256 that the producer of fetch f recorded.
func wantRef(f ir.Fetch) string {
	return "$(tasks." + f.From.Step + ".results." + digestResult(f.From.Name) + ")"
}

// digestResult and uriResult name the results of upload name.
func digestResult(name string) string { return name + "-sha256" }
func uriResult(name string) string    { return name + "-uri" }

// artifactResult names the result of an upload that Tekton Chains reads
// (kube.ArtifactScript): any name ending in ARTIFACT_OUTPUTS.
func artifactResult(name string) string { return name + "_ARTIFACT_OUTPUTS" }

// artifactProperties are the keys of an artifactResult's object.
var artifactProperties = map[string]v1.PropertySpec{
	"uri": {Type: v1.ParamTypeString}, "digest": {Type: v1.ParamTypeString}, "isBuildArtifact": {Type: v1.ParamTypeString},
}

// perPod says whether the volume named is one each pod has of its own.
// A volume p does not declare is a claim.
func perPod(p *ir.Pipeline, volume string) bool {
	for _, v := range p.Volumes {
		if v.Name == volume {
			return v.PerPod
		}
	}
	return false
}

// podVolumes are the task's own volumes of step s: each per-pod volume
// it mounts, then the scratch folder when it fetches.
func podVolumes(p *ir.Pipeline, s *ir.Step) []corev1.Volume {
	var out []corev1.Volume
	for _, v := range p.Volumes {
		for _, m := range s.Mounts {
			if v.PerPod && m.Volume == v.Name {
				out = append(out, kube.PerPodVolume(v))
				break
			}
		}
	}
	if len(s.Fetches) > 0 {
		out = append(out, kube.ScratchVolumeSpec(p))
	}
	return out
}

// podMounts are s's mounts of per-pod volumes, as its step mounts them.
func podMounts(p *ir.Pipeline, s *ir.Step) []corev1.VolumeMount {
	var out []corev1.VolumeMount
	for _, m := range s.Mounts {
		if perPod(p, m.Volume) {
			out = append(out, corev1.VolumeMount{Name: m.Volume, MountPath: m.MountPath, SubPath: m.SubPath.Render(paramRef),
				ReadOnly: m.ReadOnly})
		}
	}
	return out
}

// dataSteps puts main, the user's step of s, between the steps that move
// its data, and declares the results of its uploads: each one's sha256;
// its s3:// URI when they all fit the termination message; and, when
// those fit too, each one's result for Tekton Chains.
func dataSteps(p *ir.Pipeline, s *ir.Step, main v1.Step) ([]v1.Step, []v1.TaskResult, error) {
	if len(s.Fetches) == 0 && len(s.Uploads) == 0 {
		return append(foldersStep(p, s), main), nil, nil
	}
	uris, artifacts, err := resultsFit(p, s, main)
	if err != nil {
		return nil, nil, err
	}
	m := kube.Mover{
		RunID:      runID,
		Ref:        paramRef,
		Want:       wantRef,
		Key:        keyRef,
		KeyOut:     keyOutRef(s),
		Attempt:    "$(context.task.retry-count)",
		DigestFile: func(u ir.Upload) string { return "$(results." + digestResult(u.Name) + ".path)" },
		Mounts:     kube.Writable(podMounts(p, s)),
	}
	if uris {
		m.URIFile = func(u ir.Upload) string { return "$(results." + uriResult(u.Name) + ".path)" }
	}
	if artifacts {
		m.ArtifactFile = func(u ir.Upload) string { return "$(results." + artifactResult(u.Name) + ".path)" }
	}
	steps := foldersStep(p, s)
	if len(s.Fetches) > 0 {
		// It makes the step's folders too (kube.Mover).
		steps = []v1.Step{fromContainer(m.FetchContainer(p, s, fetchStep))}
	}
	steps = append(steps, main)
	var results []v1.TaskResult
	if len(s.Uploads) > 0 {
		steps = append(steps, fromContainer(m.UploadContainer(p, s, uploadStep)))
		for _, u := range s.Uploads {
			results = append(results,
				v1.TaskResult{Name: digestResult(u.Name), Type: v1.ResultsTypeString, Description: digestText(u)})
			if uris {
				results = append(results, v1.TaskResult{Name: uriResult(u.Name), Type: v1.ResultsTypeString,
					Description: "where " + u.Name + " is in the bucket"})
			}
			if artifacts {
				results = append(results, v1.TaskResult{Name: artifactResult(u.Name), Type: v1.ResultsTypeObject,
					Properties: artifactProperties, Description: artifactText(u)})
			}
		}
	}
	return steps, results, nil
}

// foldersStep makes the folders of step s (kube.FoldersContainer) in a
// step before its own: every step of a task mounts its workspaces
// (Apply, pkg/workspace/apply.go: the task's stepTemplate), and the
// task's volumes as podMounts names them, so the folders it makes are
// those the step's container sees. None when s has no folders.
func foldersStep(p *ir.Pipeline, s *ir.Step) []v1.Step {
	render := func(f ir.Folder) string { return f.Path.RenderContainer(paramRef) }
	c := kube.FoldersContainer(p, s, kube.Writable(podMounts(p, s)), render)
	if c == nil {
		return nil
	}
	return []v1.Step{fromContainer(*c)}
}

// digestText describes the digest of upload u.
func digestText(u ir.Upload) string {
	if u.Folder {
		return "the sha256 of the folder " + u.Name + ": the " + ir.FolderDigest
	}
	return "the sha256 of the file " + u.Name
}

// artifactText describes the result of upload u for Tekton Chains.
func artifactText(u ir.Upload) string {
	if u.Folder {
		return "the folder " + u.Name + " for Tekton Chains, a build artifact of the run: the URI of its listing, " +
			"uploaded beside it, whose sha256 is the folder's"
	}
	return "the file " + u.Name + " for Tekton Chains, a build artifact of the run: its URI and sha256"
}

// fromContainer is a step of container c.
func fromContainer(c corev1.Container) v1.Step {
	return v1.Step{
		Name: c.Name, Image: c.Image, Command: c.Command, Args: c.Args,
		Env: c.Env, VolumeMounts: c.VolumeMounts, ComputeResources: c.Resources,
		SecurityContext: c.SecurityContext,
	}
}

// resultsFit says whether the results of s's uploads, whose user's
// step is main, fit the upload step's share of the termination messages
// with their URIs, and with their results for Tekton Chains too; it
// refuses s when their digests alone do not.
func resultsFit(p *ir.Pipeline, s *ir.Step, main v1.Step) (uris, artifacts bool, err error) {
	digests, uriSize, artifactSize := resultsSize(p, s)
	budget := resultBudget(s, main)
	if digests > budget {
		return false, false, diag.Diagnostics{diag.Errorf(diag.ResultsTooLarge, s.Loc,
			"step %s uploads %d outputs, whose sha256 results take %d bytes, more than the %d the kubelet keeps", s.Name,
			len(s.Uploads), digests, budget).
			WithFix("split the step's outputs among fewer folders, or use --backend argo").
			WithDetail("Tekton puts the results in the upload step's termination message, of which the kubelet keeps 12 "+
				"KiB a pod, shared by its %d containers.", podContainers(s, main))}
	}
	uris = digests+uriSize <= budget
	return uris, uris && digests+uriSize+artifactSize <= budget, nil
}

// resultsSize is what the results of s's uploads take as Tekton writes
// them, the digests, the URIs and the results for Chains apart.
func resultsSize(p *ir.Pipeline, s *ir.Step) (digests, uris, artifacts int) {
	// A value is a JSON string: an object's quotes are escaped.
	size := func(name, value string) int {
		return len(`{"key":"","value":"","type":1},`) + len(name) + len(value) + strings.Count(value, `"`)
	}
	digest := strings.Repeat("0", 64)
	for _, u := range s.Uploads {
		digests += size(digestResult(u.Name), digest)
		key := kube.UploadKey(p, strings.Repeat("0", uidLength), ir.Output{Step: s.Name, Name: u.Name})
		if s.Key != nil {
			entry := kube.EntryOf(strings.Repeat("0", uidLength), s.Name, "100")
			key = kube.EntryKey(p, digest, entry, u)
		}
		uris += size(uriResult(u.Name), "s3://"+key)
		if u.Folder {
			key = strings.TrimSuffix(key, "/") + ".sha256sum"
		}
		artifacts += size(artifactResult(u.Name),
			`{"uri":"s3://`+key+`","digest":"sha256:`+digest+`","isBuildArtifact":"true"}`)
	}
	return digests, uris, artifacts
}

// resultBudget is what the results of s's uploads may take of the
// upload step's termination message: its container's share of the
// pod's, at most one container's, less tektonShare.
func resultBudget(s *ir.Step, main v1.Step) int {
	return min(messageLimit, podMessageLimit/podContainers(s, main)) - tektonShare
}

// podContainers counts the containers of the pod of s's task, whose
// user's step is main: a step's each (fetch, or folders when it fetches
// nothing and has folders to make: dataSteps; main; upload), and Tekton's
// init containers: prepare, always; place-scripts when a step has a
// script; working-dir-initializer when a step's workingDir is relative
// or below /workspace (Build, pkg/pod/pod.go; convertScripts,
// pkg/pod/script.go; workingDirInit, pkg/pod/workingdir_init.go;
// v1.15.0). The task has no sidecars.
func podContainers(s *ir.Step, main v1.Step) int {
	n := 2 // prepare, and main
	if len(s.Fetches) > 0 || len(s.Folders) > 0 {
		n++
	}
	if len(s.Uploads) > 0 {
		n++
	}
	if main.Script != "" {
		n++
	}
	if wd := path.Clean(main.WorkingDir); main.WorkingDir != "" &&
		(!path.IsAbs(wd) || strings.HasPrefix(wd, "/workspace/")) {
		n++
	}
	return n
}

// uriWarnings say which steps' uploads have no -uri results, or no
// results for Tekton Chains, which do not fit beside their digests
// (resultsFit).
func uriWarnings(p *ir.Pipeline) diag.Diagnostics {
	var out diag.Diagnostics
	for _, s := range containerSteps(p) {
		if len(s.Uploads) == 0 {
			continue
		}
		main := step(p, s)
		digests, uris, artifacts := resultsSize(p, s)
		budget, what := resultBudget(s, main), ""
		switch {
		case digests > budget:
			continue // refused (resultsFit)
		case digests+uris > budget:
			what = "s3:// URI results do not fit beside their sha256: only -sha256 are given, and no result for " +
				"Tekton Chains"
		case digests+uris+artifacts > budget:
			what = "results for Tekton Chains (_ARTIFACT_OUTPUTS) do not fit beside their sha256 and URIs: Chains " +
				"names none of them"
		default:
			continue
		}
		out = append(out, diag.Warnf(diag.TektonURIsLeftOut, s.Loc, "step %s uploads %d outputs, whose %s", s.Name,
			len(s.Uploads), what).
			WithFix(resultsPlace(p, s)).
			WithDetail("The kubelet keeps %d bytes of the upload step's termination message, where Tekton puts the "+
				"results (12 KiB a pod, shared by its %d containers).", budget, podContainers(s, main)))
	}
	return out
}

// resultsPlace says where the uploads of s are, for a warning's fix.
func resultsPlace(p *ir.Pipeline, s *ir.Step) string {
	if s.Key != nil {
		return fmt.Sprintf("find each output in s3://%s/%s/<key>/, in the entry its key's manifest names",
			p.ObjectStore.S3.Bucket, p.ObjectStore.Cache.Prefix)
	}
	return fmt.Sprintf("find each output at s3://%s/<run uid>/%s/<output>", p.ObjectStore.S3.Bucket, s.Name)
}

// objectRefusals refuse what a step's data needs that Tekton cannot
// give: an object store it can use (kube.RefuseStore); a file of a
// per-pod volume mounted itself (podFiles).
func objectRefusals(p *ir.Pipeline) error {
	if err := kube.RefuseStore(p, "Tekton"); err != nil {
		return err
	}
	for _, s := range containerSteps(p) {
		if err := podFiles(p, s); err != nil {
			return err
		}
	}
	return nil
}

// podFiles refuses a file that s mounts itself from a per-pod volume:
// one it creates (ir.Mount.File), or one it fetches. The kubelet makes a
// subPath that is not there a folder as it starts a container
// (makeMounts, pkg/kubelet/kubelet_pods.go of kubernetes/kubernetes),
// and it starts every step of a task when the pod starts.
func podFiles(p *ir.Pipeline, s *ir.Step) error {
	for _, m := range s.Mounts {
		if !perPod(p, m.Volume) || len(m.SubPath) == 0 {
			continue
		}
		file := m.File
		for _, f := range s.Fetches {
			if f.From != nil && f.Sub == "" && f.Path.Render(paramRef) == m.MountPath && !kube.Uploaded(p, *f.From).Folder {
				file = true
			}
		}
		if file {
			return diag.Diagnostics{diag.Errorf(diag.EngineCannotRun, s.Loc,
				"step %s mounts the file %s itself from a volume of its pod, which the kubelet makes a folder", s.Name,
				m.MountPath).
				WithFix("mount its folder, or use --backend argo or a workspace claim (storage.workspace: claim)").
				WithDetail("The kubelet makes a subPath that is not there a folder as it starts a container (makeMounts, " +
					"pkg/kubelet/kubelet_pods.go of kubernetes/kubernetes), and it starts every step of a task when the pod " +
					"starts, before a step of the task could put the file there.")}
		}
	}
	return nil
}
