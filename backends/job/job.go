package job

import (
	"fmt"
	"slices"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/backends/internal/kube"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

const (
	// containerName is what the MLCube runner calls its container.
	containerName = "mlcube-container"
	// defaultBackoffLimit is the runner's; a step's retries replace it.
	defaultBackoffLimit = 4
)

// compile builds the Job for the one step of p, a pipeline the engine
// accepts, and checks it.
func compile(p *ir.Pipeline) (*batchv1.Job, diag.Diagnostics, error) {
	s, defaults := p.Steps[0], paramDefaults(p)
	ref := func(param string) string { return ir.KubeLiteral(defaults[param]) }
	backoff := int32(defaultBackoffLimit)
	if s.Retry != nil {
		backoff = int32(s.Retry.Limit)
	}
	c := container(p, s, ref)
	meta := kube.RunMeta(p, s.Labels)
	job := &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: kube.RunMeta(p, s.Labels, kube.QueueLabels(s)),
		Spec: batchv1.JobSpec{
			BackoffLimit:            &backoff,
			TTLSecondsAfterFinished: p.TTLSecondsAfterFinished,
			Suspend:                 suspend(s),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: meta.Labels},
				Spec: corev1.PodSpec{
					PriorityClassName:  s.PriorityClassName,
					RestartPolicy:      corev1.RestartPolicyNever,
					ServiceAccountName: p.ServiceAccountName,
					ImagePullSecrets:   kube.ImagePullSecrets(p.ImagePullSecrets),
					NodeSelector:       s.NodeSelector,
					Tolerations:        kube.Tolerations(s.Tolerations),
					SecurityContext:    kube.PodSecurityContext(p, s.SecurityContext),
					Containers:         []corev1.Container{c},
					ResourceClaims:     kube.PodResourceClaims(s.Resources),
					Volumes:            append(volumes(p.Volumes), kube.ShmVolumes(s)...),
				},
			},
		},
	}
	job.Spec.Template.Spec.InitContainers = initContainers(p, s, ref)
	if err := moveData(p, s, ref, &job.Spec.Template.Spec); err != nil {
		return nil, nil, err
	}
	if s.Timeout > 0 {
		// On the pod, so that the timeout bounds each attempt, as on the
		// engines; on the Job it would bound every retry together.
		secs := int64(s.Timeout.Seconds())
		job.Spec.Template.Spec.ActiveDeadlineSeconds = &secs
	}
	if err := emit.CheckSize(job, p.Spec.Field("steps"), "the Job", emit.ObjectLimit,
		"etcd's limit on an object"); err != nil {
		return nil, nil, err
	}
	if err := Validate(job); err != nil {
		return nil, nil, fmt.Errorf("the Job fails validation: %w", err)
	}
	return job, warnings(p), nil
}

// suspend creates a queued step's Job suspended: Kueue admits the Job as
// one workload and starts it by setting spec.suspend to false
// (pkg/controller/jobs/job/job_controller.go, IsSuspended and
// RunWithPodSetsInfo, sigs.k8s.io/kueue v0.19.2). The queue label is on
// the Job alone: its pods are admitted with it.
func suspend(s *ir.Step) *bool {
	if s.Queue == "" {
		return nil
	}
	return ptr.To(true)
}

// container runs s, its parameters' references replaced by ref.
func container(p *ir.Pipeline, s *ir.Step, ref func(param string) string) corev1.Container {
	c := corev1.Container{
		Name:            containerName,
		Image:           s.Image,
		ImagePullPolicy: corev1.PullPolicy(s.ImagePullPolicy),
		Command:         kube.Command(s.Command),
		Env:             kube.Env(s.Env, ref),
		VolumeMounts:    kube.VolumeMounts(s, ref),
		Resources:       kube.Resources(s.Resources),
		SecurityContext: kube.StepSecurity(p),
	}
	for _, a := range s.Args {
		c.Args = append(c.Args, kube.Arg(a, ref))
	}
	return c
}

// oneStep refuses p unless it has one step, which runs in one container:
// the step a Job runs. Its refusals name --step for a pipeline file's
// steps (p.FileSteps), --task for a cube's tasks.
func oneStep(p *ir.Pipeline) diag.Diagnostics {
	if len(p.Steps) != 1 {
		return tooManySteps(p)
	}
	s := p.Steps[0]
	if s.Kind != ir.Container {
		kind := map[ir.Kind]string{ir.MPI: "an MPIJob (mpi:)", ir.Torch: "a TrainJob (torch:)"}[s.Kind]
		if s.Dask != nil {
			kind = "a " + string(s.Dask.Form) + " (dask:)"
		}
		var others []string
		for _, name := range p.FileSteps {
			if name != s.Written {
				others = append(others, name)
			}
		}
		more := ""
		if len(others) > 0 {
			more = fmt.Sprintf("; --step NAME compiles each of the pipeline's other steps (%s) as a Job",
				strings.Join(others, ", "))
		}
		return emit.RefuseShape(backendFlag(p),
			"a Job runs one task in one container, and step %s runs as %s, which an engine must create and wait for; use "+
				"--backend argo or --backend tekton%s", s.Name, kind, more)
	}
	return nil
}

// tooManySteps refuses p's steps, more than one: a pipeline file's by
// their names, in its order, to compile one at a time with --step; a cube's by its
// tasks, as --task takes them (the cube's sanity_check, not the step
// sanity-check), each once.
func tooManySteps(p *ir.Pipeline) diag.Diagnostics {
	var names []string
	if p.FileSteps != nil {
		for _, name := range p.FileSteps {
			if slices.ContainsFunc(p.Steps, func(s *ir.Step) bool { return s.Written == name }) {
				names = append(names, name)
			}
		}
		return emit.RefuseShape(backendFlag(p),
			"a Job runs one step, and %d would run here (%s); compile them one at a time with --step NAME, or use --backend "+
				"argo or --backend tekton, which run them all",
			len(p.Steps), strings.Join(names, ", "))
	}
	seen := map[string]bool{}
	for _, s := range p.Steps {
		name := s.Task
		if name == "" {
			name = s.Name
		}
		if !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	return emit.RefuseShape(backendFlag(p),
		"a Job runs one task, and %d would run here (%s); name one task of the cube with --task NAME (in place of a "+
			"pipeline file), or use --backend argo or --backend tekton, which run them all",
		len(p.Steps), strings.Join(names, ", "))
}

// warnings explain what the Job does differently from the engines, each
// at what it is about.
func warnings(p *ir.Pipeline) diag.Diagnostics {
	var out diag.Diagnostics
	for _, s := range p.Steps {
		if s.Retry != nil && s.Retry.Backoff > 0 {
			out = append(out, diag.Warnf(diag.BackoffNotApplied, s.Loc.Field("retries").Field("backoff"),
				"step %s: a Job waits between retries with its own backoff (10s, 20s, 40s, … up to 6m); the %v backoff is "+
					"not applied", s.Name, s.Retry.Backoff))
		}
	}
	for _, s := range p.Steps {
		if s.Key != nil {
			out = append(out, diag.Warnf(diag.JobNoCache, p.Platform.Field("objectStore").Field("cache"),
				"step %s runs whatever the cache holds: a Job cannot skip its container; it writes no entry of the "+
					"cache, and uploads its outputs at <run uid>/%s/<output>", s.Name, s.Name).
				WithFix("use --backend argo or tekton to skip a step whose key is in the cache"))
		}
	}
	for _, v := range p.Volumes {
		if v.Create != nil {
			out = append(out, diag.Warnf(diag.ClaimPerRunDeleted, p.Platform.Field("storage"),
				"the claim per run the platform's storage asks for is a Job's ephemeral volume, so results do not outlive the Job").
				WithFix("set storage.pvc to keep results").
				WithDetail("A Job makes the claim per run as an ephemeral volume, which is deleted with its pod."))
		}
	}
	return out
}

// paramsSet refuses a parameter that step s uses with no default: a Job
// has no run-time parameters.
func paramsSet(p *ir.Pipeline, s *ir.Step) diag.Diagnostics {
	defaults := paramDefaults(p)
	for _, t := range stepTexts(s) {
		for _, piece := range t {
			if _, ok := defaults[piece.Param]; piece.Param != "" && !ok {
				return emit.RefuseShape(p.Spec.Field("params").Field(piece.Param),
					"a Job has no run-time parameters, so the job backend needs a default for every parameter a step uses; give it "+
						"one, or use --backend argo or tekton")
			}
		}
	}
	return nil
}

// paramDefaults gives the value of each parameter that has a default.
func paramDefaults(p *ir.Pipeline) map[string]string {
	out := map[string]string{}
	for _, pp := range p.Params {
		if pp.Default != nil {
			out[pp.Name] = *pp.Default
		}
	}
	return out
}

func stepTexts(s *ir.Step) []ir.Text {
	var out []ir.Text
	for _, a := range s.Args {
		out = append(out, a.Value)
	}
	for _, e := range s.Env {
		out = append(out, e.Value)
	}
	return out
}

// volumes mounts each existing claim; a claim the platform asks to create
// per run becomes a generic ephemeral volume, created with the pod and
// deleted with it; a volume each pod has of its own is an emptyDir or a
// generic ephemeral volume too (kube.PerPodVolume).
func volumes(vols []ir.Volume) []corev1.Volume {
	var out []corev1.Volume
	for _, v := range vols {
		vol := corev1.Volume{Name: v.Name}
		if v.PerPod {
			vol = kube.PerPodVolume(v)
		} else if v.Create == nil {
			vol.PersistentVolumeClaim = &corev1.PersistentVolumeClaimVolumeSource{ClaimName: v.ClaimName}
		} else {
			vol.Ephemeral = &corev1.EphemeralVolumeSource{
				VolumeClaimTemplate: &corev1.PersistentVolumeClaimTemplate{Spec: kube.ClaimSpec(v.Create)},
			}
		}
		out = append(out, vol)
	}
	return out
}

// initContainers run before the step's container: the one that creates
// the files it mounts itself (kube.CreateFiles), and the one that makes
// its folders (kube.FoldersContainer), unless it fetches: its fetch
// container makes them then (kube.Mover).
func initContainers(p *ir.Pipeline, s *ir.Step, ref func(param string) string) []corev1.Container {
	var out []corev1.Container
	if c := kube.CreateFiles(p, s, ref); c != nil {
		out = append(out, *c)
	}
	render := func(f ir.Folder) string { return f.Path.RenderContainer(ref) }
	if c := kube.FoldersContainer(p, s, kube.VolumeMounts(s, ref)[:len(s.Mounts)], render); c != nil &&
		len(s.Fetches) == 0 {
		out = append(out, *c)
	}
	return out
}
