package tekton

import (
	"cmp"
	"slices"
	"strconv"

	v1 "github.com/tektoncd/pipeline/pkg/apis/pipeline/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/mlcube-compile/mlcube-compile/backends/internal/kube"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
)

// stepName names the one step of each task; Tekton calls its container
// step-main.
const stepName = "main"

// pipelineTask runs one IR step as a task with an embedded taskSpec. The
// pipeline parameters the step uses are passed in as task parameters of
// the same name, so the taskSpec stands on its own. A claim the step
// mounts is a workspace; a volume each pod has of its own, one of the
// task's volumes; steps before and after the user's move its data
// (dataSteps).
func pipelineTask(p *ir.Pipeline, s *ir.Step) (v1.PipelineTask, error) {
	main := step(p, s)
	volumes := imageWorkspace(p, s, &main.VolumeMounts, append(kube.ShmVolumes(s), podVolumes(p, s)...))
	steps, results, err := dataSteps(p, s, main)
	if err != nil {
		return v1.PipelineTask{}, err
	}
	t := embeddedTask(p, s, v1.TaskSpec{Steps: steps, Results: results, Volumes: volumes})
	queueTask(&t, s)
	for _, name := range usedParams(s) {
		t.Params = append(t.Params, v1.Param{Name: name, Value: *v1.NewStructuredValues(paramRef(name))})
		t.TaskSpec.Params = append(t.TaskSpec.Params, v1.ParamSpec{Name: name, Type: v1.ParamTypeString})
	}
	var claims []ir.Mount
	for _, m := range s.Mounts {
		if !perPod(p, m.Volume) {
			claims = append(claims, m)
		}
	}
	bindClaims(&t, claims, false)
	return t, nil
}

// bindClaims binds each mount of a claim to task t as a workspace of the
// pipeline's, named after the mount, or its volume and a number when
// the task has that name (the parts of one claim a step reads);
// readOnly mounts each read-only, else as the mount says.
func bindClaims(t *v1.PipelineTask, mounts []ir.Mount, readOnly bool) {
	for _, m := range mounts {
		name := cmp.Or(m.Name, m.Volume)
		taken := func(b v1.WorkspacePipelineTaskBinding) bool { return b.Name == name }
		for n := 2; slices.ContainsFunc(t.Workspaces, taken); n++ {
			name = cmp.Or(m.Name, m.Volume) + "-" + strconv.Itoa(n)
		}
		t.Workspaces = append(t.Workspaces,
			v1.WorkspacePipelineTaskBinding{Name: name, Workspace: m.Volume, SubPath: m.SubPath.Render(paramRef)})
		t.TaskSpec.Workspaces = append(t.TaskSpec.Workspaces,
			v1.WorkspaceDeclaration{Name: name, MountPath: m.MountPath, ReadOnly: readOnly || m.ReadOnly})
	}
}

// embeddedTask runs spec as the task of step s: its name, order, labels,
// timeout and retries.
func embeddedTask(p *ir.Pipeline, s *ir.Step, spec v1.TaskSpec) v1.PipelineTask {
	t := v1.PipelineTask{
		Name:     s.Name,
		RunAfter: s.Dependencies,
		Timeout:  duration(s.Timeout),
		TaskSpec: &v1.EmbeddedTask{
			Metadata: v1.PipelineTaskMetadata{Labels: kube.Labels(p.Labels, s.Labels)},
			TaskSpec: spec,
		},
	}
	if s.Retry != nil {
		t.Retries = s.Retry.Limit
	}
	return t
}

// step is the task's container: the MLCube runner's contract. Workspaces
// are mounted by Tekton; the task's own volumes, each pod's, and /dev/shm
// are mounted here.
func step(p *ir.Pipeline, s *ir.Step) v1.Step {
	st := v1.Step{
		Name:             stepName,
		Image:            s.Image,
		ImagePullPolicy:  corev1.PullPolicy(s.ImagePullPolicy),
		Command:          kube.Command(s.Command),
		Env:              kube.Env(s.Env, paramRef),
		ComputeResources: kube.Resources(s.Resources),
		VolumeMounts:     append(podMounts(p, s), kube.ShmMounts(s)...),
		SecurityContext:  kube.StepSecurity(p),
	}
	for _, a := range s.Args {
		st.Args = append(st.Args, kube.Arg(a, paramRef))
	}
	commandOf(p, s, &st)
	return st
}

// usedParams lists the pipeline parameters a step refers to, in the order
// it first refers to them.
func usedParams(s *ir.Step) []string {
	var out []string
	seen := map[string]bool{}
	add := func(t ir.Text) {
		for _, piece := range t {
			if piece.Param != "" && !seen[piece.Param] {
				seen[piece.Param] = true
				out = append(out, piece.Param)
			}
		}
	}
	for _, a := range s.Args {
		add(a.Value)
	}
	for _, e := range s.Env {
		add(e.Value)
	}
	return out
}

// queueTask labels a queued step's task with its Kueue queue. Tekton
// copies an embedded task's metadata labels to its TaskRun
// (pkg/reconciler/pipelinerun/pipelinerun.go, createTaskRun and
// combineTaskRunAndTaskSpecLabels) and a TaskRun's labels to its pod
// (pkg/pod/pod.go, makeLabels), v1.13.0 and v1.15.0 alike, so the pod
// carries the label and Kueue's pod integration gates it until its
// workload is admitted. A distributed step's task runs kubectl, which is
// not queued: its job is. Kueue preempts such a pod by deleting it, and
// a TaskRun whose pod fails while deleted fails (MakeTaskRunStatus); one
// with retries left is tried again with a new pod, whatever failed it
// (IsRetriable, pkg/apis/pipeline/v1/taskrun_types.go; retryTaskRun,
// pkg/reconciler/taskrun/taskrun.go, v1.15.0). So a queued step without
// retries of its own gets kube.PreemptionRetries, and a warning.
func queueTask(t *v1.PipelineTask, s *ir.Step) {
	if labels := kube.QueueLabels(s); labels != nil {
		t.TaskSpec.Metadata.Labels = kube.Labels(t.TaskSpec.Metadata.Labels, labels)
	}
	if kube.RetriedOnPreemption(s) {
		t.Retries = kube.PreemptionRetries
	}
}

// filesTask creates, before step s runs, the files s mounts itself
// (kube.CreateFiles), as a task of its own: a TaskRun's pod takes no init
// container of ours, and a step before s's in the same task would not
// run in time, since the kubelet resolves the mounts of every container
// of the pod as it creates them, before the first step runs.
func filesTask(p *ir.Pipeline, s *ir.Step) (v1.PipelineTask, bool) {
	c := kube.CreateFiles(p, s, paramRef)
	if c == nil {
		return v1.PipelineTask{}, false
	}
	t := v1.PipelineTask{
		Name:     s.Name + "-" + kube.CreateFilesName,
		RunAfter: s.Dependencies,
		TaskSpec: &v1.EmbeddedTask{
			Metadata: v1.PipelineTaskMetadata{Labels: kube.Labels(p.Labels, s.Labels)},
			TaskSpec: v1.TaskSpec{Steps: []v1.Step{{
				Name: stepName, Image: c.Image, ImagePullPolicy: c.ImagePullPolicy,
				Command: c.Command, Args: c.Args, ComputeResources: c.Resources,
				SecurityContext: c.SecurityContext,
			}}},
		},
	}
	for _, name := range usedParams(s) {
		t.Params = append(t.Params, v1.Param{Name: name, Value: *v1.NewStructuredValues(paramRef(name))})
		t.TaskSpec.Params = append(t.TaskSpec.Params, v1.ParamSpec{Name: name, Type: v1.ParamTypeString})
	}
	for _, m := range c.VolumeMounts {
		t.Workspaces = append(t.Workspaces, v1.WorkspacePipelineTaskBinding{Name: m.Name, Workspace: m.Name})
		t.TaskSpec.Workspaces = append(t.TaskSpec.Workspaces, v1.WorkspaceDeclaration{Name: m.Name, MountPath: m.MountPath})
	}
	return t, true
}
