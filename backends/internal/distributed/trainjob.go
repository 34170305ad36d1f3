package distributed

import (
	"strings"

	trainer "github.com/kubeflow/trainer/v2/pkg/apis/trainer/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/mlcube-compile/mlcube-compile/backends/internal/kube"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

const (
	trainGroup = "trainer.kubeflow.org"
	// trainNode is the replicated job, and its container, that Trainer's
	// torch-distributed runtime runs torchrun in, on every node: the
	// trainer's ancestor step (manifests/base/runtimes/
	// torch_distributed.yaml; constants.Node, pkg/constants, v2.3.0).
	trainNode = "node"
	// patchManager names the compiler's runtime patch; Trainer's webhook
	// wants a domain-prefixed path (pkg/webhooks, v2.3.0).
	patchManager = "mlcube-compile.io/compiler"
)

// A TrainJob's conditions are Complete or Failed once its JobSet is
// done (trainer.TrainJobComplete, TrainJobFailed). Argo's resource
// conditions cannot look inside status.conditions, a list, so every
// engine waits with the wait script, whose JSONPath can.
const trainStatus = `{.status.conditions[?(@.status=="True")].type}`

// trainJob builds the TrainJob of a torch step: the runtime's nodes, each
// running the step's command with its args, env and resources; what the
// TrainJob has no field of its own for (volumes, mounts, scheduling,
// security, the account) reaches the node pods through a runtime patch.
// That patch has no resourceClaims, so GPUs by DRA are asked for as the
// device class's extended resource, or refused when no limit can say
// them.
func trainJob(p *ir.Pipeline, s *ir.Step, claim ClaimName, runName string) (*Job, error) {
	t := s.Train
	res, ok := kube.GPUsAsLimit(s.Resources)
	if !ok {
		c := s.Resources.GPUClaim
		return nil, diag.Diagnostics{diag.Errorf(diag.EngineCannotRun, c.At,
			"step %s cannot ask for its GPUs as a limit: %s", s.Name, c.Why).
			WithFix("ask for them so that a limit can (a deviceClass with no selector), or as an extended resource " +
				"(the platform's gpu.resource), or use mpi:").
			WithDetail("A TrainJob's node pods must ask for them as a limit: they cannot carry claims (Trainer v2.3.0's " +
				"runtime patches have no resourceClaims), so they ask for GPUs by Dynamic Resource Allocation as the " +
				"device class's extended resource.")}
	}
	node := container(p, s, trainNode, kube.Command(s.Command), nil, res)
	for _, a := range s.Args {
		node.Args = append(node.Args, kube.Arg(a, noParams))
	}
	pod := podSpec(p, s, claim, s.NodeSelector, s.Tolerations, node)
	meta := objectMeta(p, s)
	job := &trainer.TrainJob{
		TypeMeta:   metav1.TypeMeta{APIVersion: trainer.GroupVersion.String(), Kind: trainer.TrainJobKind},
		ObjectMeta: queuedJobMeta(p, s, meta, t.GenerateName, runName),
		Spec: trainer.TrainJobSpec{
			RuntimeRef: trainer.RuntimeRef{Name: t.Runtime, APIGroup: ptr.To(trainGroup), Kind: ptr.To(t.RuntimeKind)},
			Trainer: &trainer.Trainer{
				Image: ptr.To(s.Image), Command: node.Command, Args: node.Args, Env: node.Env,
				NumNodes: ptr.To(int32(t.Nodes)), NumProcPerNode: ptr.To(int32(t.ProcsPerNode)),
				ResourcesPerNode: &node.Resources,
			},
			RuntimePatches: nodeRuntimePatch(meta, pod, node),
		},
	}
	if s.Timeout > 0 {
		job.Spec.ActiveDeadlineSeconds = int64(s.Timeout.Seconds())
	}
	// A queued TrainJob is created suspended: Kueue admits the whole
	// gang of nodes as one workload and resumes it (IsSuspended and
	// RunWithPodSetsInfo, pkg/controller/jobs/trainjob/
	// trainjob_controller.go, sigs.k8s.io/kueue v0.19.2); Trainer keeps
	// its JobSet suspended until then.
	if s.Queue != "" {
		job.Spec.Suspend = ptr.To(true)
	}
	if t.ManagedBy != "" {
		job.Spec.ManagedBy = ptr.To(t.ManagedBy)
	}
	if err := validateTrainJob(job); err != nil {
		return nil, err
	}
	return &Job{
		Object: job, Resource: "trainjobs", Group: trainGroup,
		Status: trainStatus, Succeeded: trainer.TrainJobComplete, Failed: trainer.TrainJobFailed,
	}, nil
}

// nodeRuntimePatch is the compiler's one patch of the runtime: the pod
// template of its node job, labelled as meta says.
func nodeRuntimePatch(meta metav1.ObjectMeta, pod corev1.PodSpec, node corev1.Container) []trainer.RuntimePatch {
	return []trainer.RuntimePatch{{
		Manager: patchManager,
		TrainingRuntimeSpec: &trainer.TrainingRuntimeSpecPatch{Template: &trainer.JobSetTemplatePatch{
			Spec: &trainer.JobSetSpecPatch{ReplicatedJobs: []trainer.ReplicatedJobPatch{{
				Name: trainNode,
				Template: &trainer.JobTemplatePatch{Spec: &trainer.JobSpecPatch{Template: &trainer.PodTemplatePatch{
					Metadata: &meta, Spec: nodePatch(pod, node),
				}}},
			}}},
		}},
	}}
}

// nodePatch is what the runtime patch sets on every node's pod: what the
// step's pod spec holds beyond the TrainJob's own fields.
func nodePatch(pod corev1.PodSpec, node corev1.Container) *trainer.PodSpecPatch {
	patch := &trainer.PodSpecPatch{
		Volumes: pod.Volumes, ImagePullSecrets: pod.ImagePullSecrets,
		SecurityContext: pod.SecurityContext,
		NodeSelector:    pod.NodeSelector, Tolerations: pod.Tolerations,
		Containers: []trainer.ContainerPatch{{Name: trainNode, VolumeMounts: node.VolumeMounts,
			SecurityContext: node.SecurityContext}},
	}
	if pod.ServiceAccountName != "" {
		patch.ServiceAccountName = ptr.To(pod.ServiceAccountName)
	}
	if len(patch.Containers[0].VolumeMounts) == 0 && patch.Containers[0].SecurityContext == nil {
		patch.Containers = nil
	}
	return patch
}

// trainJobName is the longest name the API server can give job, which
// the node pods' hostnames derive from.
func trainJobName(job *trainer.TrainJob) string {
	return job.GenerateName + strings.Repeat("x", ir.GeneratedSuffixLen)
}
