package distributed_test

import (
	"slices"
	"strings"
	"testing"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	corev1 "k8s.io/api/core/v1"

	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/internal/enginetest"
	"github.com/mlcube-compile/mlcube-compile/internal/manifestcheck"
)

// torch-ddp's train step is a TrainJob on Trainer's torch-distributed
// runtime: 2 nodes, torchrun starting one process per GPU on each, the
// task's script with its args, and what the TrainJob has no field for
// (the workspace, tolerations) in the compiler's runtime patch of the
// runtime's node job and container.
func TestTorchStepIsATrainJob(t *testing.T) {
	for _, backend := range []string{"argo", "tekton"} {
		t.Run(backend, func(t *testing.T) {
			job := enginetest.OneTrainJob(t, manifestcheck.Example(t, backend, "torch-ddp").Run)
			ref, tr := job.Spec.RuntimeRef, job.Spec.Trainer
			if ref.Name != "torch-distributed" || *ref.Kind != "ClusterTrainingRuntime" ||
				*ref.APIGroup != "trainer.kubeflow.org" {
				t.Errorf("runtimeRef: got %+v", ref)
			}
			if *tr.NumNodes != 2 || *tr.NumProcPerNode != 2 {
				t.Errorf("nodes × processes: got %d × %d, want 2 × 2 (accelerator_count 2)", *tr.NumNodes, *tr.NumProcPerNode)
			}
			if cmd := strings.Join(tr.Command, " "); cmd != "torchrun /workspace/ddp/train.py" {
				t.Errorf("command: got %q, want torchrun starting the task's script", cmd)
			}
			if len(tr.Args) != 3 || tr.Args[0] != "--data_dir=/mnt/work/data" {
				t.Errorf("args: got %q", tr.Args)
			}
			if gpu := tr.ResourcesPerNode.Limits["nvidia.com/gpu"]; gpu.String() != "2" {
				t.Errorf("GPUs per node: got %s, want 2", gpu.String())
			}
			if len(job.Spec.RuntimePatches) != 1 {
				t.Fatalf("runtime patches: got %d, want 1", len(job.Spec.RuntimePatches))
			}
			rj := job.Spec.RuntimePatches[0].TrainingRuntimeSpec.Template.Spec.ReplicatedJobs
			if len(rj) != 1 || rj[0].Name != "node" {
				t.Fatalf("patched replicated jobs: got %+v, want node", rj)
			}
			pod := rj[0].Template.Spec.Template.Spec
			if !slices.ContainsFunc(pod.Volumes, func(v corev1.Volume) bool {
				return v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName == "training-share"
			}) {
				t.Errorf("node pods lack the workspace claim: %+v", pod.Volumes)
			}
			if len(pod.Containers) != 1 || pod.Containers[0].Name != "node" ||
				!slices.ContainsFunc(pod.Containers[0].VolumeMounts,
					func(m corev1.VolumeMount) bool { return m.MountPath == "/mnt/work" }) {
				t.Errorf("node container patch: got %+v", pod.Containers)
			}
			if len(pod.Tolerations) != 1 || pod.Tolerations[0].Key != "nvidia.com/gpu" {
				t.Errorf("tolerations: got %+v", pod.Tolerations)
			}
			if job.Labels["mlcube-compile/step"] != "train" || job.Labels["mlcube-compile/run"] == "" {
				t.Errorf("labels: got %v, want the run's and step's", job.Labels)
			}
			if job.Spec.Suspend != nil {
				t.Errorf("an unqueued TrainJob is created suspended")
			}
		})
	}
}

// Argo's resource conditions cannot look inside a TrainJob's conditions,
// so its step runs the wait script, which creates the job owned by its
// pod and waits for Complete or Failed.
func TestTorchOnArgoWaitsWithTheScript(t *testing.T) {
	wf := manifestcheck.Example(t, "argo", "torch-ddp").Run.(*wfv1.Workflow)
	var env map[string]string
	for _, tmpl := range wf.Spec.Templates {
		if r := tmpl.Resource; r != nil && r.Action == "create" {
			t.Errorf("template %s creates the TrainJob as a resource, whose conditions cannot see its end", tmpl.Name)
		}
		if c := tmpl.Container; c != nil &&
			slices.ContainsFunc(c.Env, func(e corev1.EnvVar) bool { return e.Name == "MANIFEST" }) {
			env = map[string]string{}
			for _, e := range c.Env {
				env[e.Name] = e.Value
			}
		}
	}
	if env == nil {
		t.Fatal("no template runs the wait script")
	}
	if env["SUCCEEDED"] != "Complete" || env["FAILED"] != "Failed" || env["RESOURCE"] != "trainjobs.trainer.kubeflow.org" {
		t.Errorf("wait env: got %v", env)
	}
	if !strings.Contains(env["MANIFEST"],
		`"ownerReferences":[{"apiVersion":"v1","kind":"Pod","name":"$(POD_NAME)","uid":"$(POD_UID)"}]`) {
		t.Errorf("the TrainJob is not owned by the pod that waits for it: %s", env["MANIFEST"])
	}
}

// A queued torch step's TrainJob carries the queue's labels and is
// created suspended, so that Kueue admits all its nodes at once.
func TestTorchQueuedIsSuspended(t *testing.T) {
	files := enginetest.TorchPipeline(t, "    torch: {nodes: 2}\n", "queue: gpu-queue\nworkloadPriorityClass: training\n")
	for _, backend := range []string{"argo", "tekton"} {
		job := enginetest.OneTrainJob(t,
			manifestcheck.BuildFor(t, backend, manifestcheck.Specs(files), emit.Options{}).Must(t).Run)
		if job.Spec.Suspend == nil || !*job.Spec.Suspend {
			t.Errorf("%s: a queued TrainJob must be created suspended", backend)
		}
		if job.Labels["kueue.x-k8s.io/queue-name"] != "gpu-queue" ||
			job.Labels["kueue.x-k8s.io/priority-class"] != "training" {
			t.Errorf("%s: labels %v, want the queue's and the priority class's", backend, job.Labels)
		}
	}
}

// With multiKueue, queued TrainJobs and MPIJobs are Kueue's MultiKueue's
// to dispatch: their managedBy names it, and mpi-operator's validation
// accepts it.
func TestMultiKueueManagesQueuedJobs(t *testing.T) {
	platform := "queue: gpu-queue\nmultiKueue: true\n"
	torch := enginetest.TorchPipeline(t, "    torch: {nodes: 2}\n", platform)
	mpi := enginetest.ResNetPipeline(t, "    mpi: {workers: 2}\n", platform)
	for _, backend := range []string{"argo", "tekton"} {
		job := enginetest.OneTrainJob(t,
			manifestcheck.BuildFor(t, backend, manifestcheck.Specs(torch), emit.Options{}).Must(t).Run)
		if job.Spec.ManagedBy == nil || *job.Spec.ManagedBy != "kueue.x-k8s.io/multikueue" {
			t.Errorf("%s: TrainJob managedBy %v, want MultiKueue's", backend, job.Spec.ManagedBy)
		}
		m := enginetest.OneMPIJob(t, manifestcheck.BuildFor(t, backend, manifestcheck.Specs(mpi), emit.Options{}).Must(t).Run)
		if m.Spec.RunPolicy.ManagedBy == nil || *m.Spec.RunPolicy.ManagedBy != "kueue.x-k8s.io/multikueue" {
			t.Errorf("%s: MPIJob managedBy %v, want MultiKueue's", backend, m.Spec.RunPolicy.ManagedBy)
		}
	}
}

// What a TrainJob cannot carry to its node pods is a warning where it is
// written, never dropped silently.
func TestTorchSaysWhatItCannotCarry(t *testing.T) {
	files := enginetest.TorchPipeline(t, "    torch: {nodes: 2}\n", "priorityClassName: high\nimagePullPolicy: Always\n")
	out := manifestcheck.BuildFor(t, "argo", manifestcheck.Specs(files), emit.Options{}).Must(t)
	var got []string
	for _, d := range out.Diags {
		if d.Code == "MLC405" {
			got = append(got, d.Field)
		}
	}
	if strings.Join(got, " ") != "priorityClassName imagePullPolicy" {
		t.Errorf("MLC405 warnings at %q, want at priorityClassName and imagePullPolicy\n%s", got, out.Stderr())
	}
}

// A TrainJob's node pods cannot carry claims: GPUs by DRA become the
// device class's extended resource, or the step is refused at the
// request when no limit can say it.
func TestTorchGPUsByDRA(t *testing.T) {
	files := enginetest.TorchPipeline(t, "    torch: {nodes: 2}\n",
		"gpu: {deviceClass: gpu.example.com, extendedResourceName: example.com/gpu}\n")
	for _, backend := range []string{"argo", "tekton"} {
		tr := enginetest.OneTrainJob(t,
			manifestcheck.BuildFor(t, backend, manifestcheck.Specs(files), emit.Options{}).Must(t).Run).Spec.Trainer
		if gpu := tr.ResourcesPerNode.Limits["example.com/gpu"]; gpu.String() != "2" || len(tr.ResourcesPerNode.Claims) > 0 {
			t.Errorf("%s: resources per node %+v, want 2 example.com/gpu and no claims", backend, tr.ResourcesPerNode)
		}
	}
	files = enginetest.TorchPipeline(t, "    torch: {nodes: 2}\n", "gpu: {deviceClass: gpu.example.com, selector: "+
		"'device.attributes[\"gpu.example.com\"].model == \"LATEST-GPU-MODEL\"'}\n")
	out := manifestcheck.BuildFor(t, "argo", manifestcheck.Specs(files), emit.Options{})
	refused := "step train cannot ask for its GPUs as a limit: its selector narrows the class's devices"
	if !out.Failed() || !strings.Contains(out.Stderr(), refused) {
		t.Errorf("a DRA request with a selector on a torch step: want a refusal, got\n%s", out.Stderr())
	}
}

// A torch step's GPUs by DRA are a limit, so no ResourceClaimTemplate is
// made for it: Argo applies none and asks for no rights on them.
func TestTorchMakesNoClaimTemplate(t *testing.T) {
	files := enginetest.TorchPipeline(t, "    torch: {nodes: 2}\n", "gpu: {deviceClass: gpu.example.com}\n")
	out := manifestcheck.BuildFor(t, "argo", manifestcheck.Specs(files), emit.Options{}).Must(t)
	if y := out.YAML(t); strings.Contains(y, "ResourceClaimTemplate") {
		t.Errorf("a torch step's run applies a ResourceClaimTemplate no pod claims from:\n%s", y)
	}
}
