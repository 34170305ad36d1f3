package kube

import "github.com/mlcube-compile/mlcube-compile/compiler/ir"

// The labels Kueue reads a workload's LocalQueue and WorkloadPriorityClass
// from (sigs.k8s.io/kueue v0.19.2, pkg/controller/constants/constants.go:
// QueueLabel, WorkloadPriorityClassLabel).
const (
	QueueLabel                 = "kueue.x-k8s.io/queue-name"
	WorkloadPriorityClassLabel = "kueue.x-k8s.io/priority-class"
)

// QueueLabels are the labels that put the step's workload in its Kueue
// queue, with its WorkloadPriorityClass; nil when it runs in none. They
// go on the one object Kueue admits as the step's workload: a Job, an
// MPIJob, or a pod of the pod integration, never on the pods of a job,
// which Kueue admits with their job.
func QueueLabels(s *ir.Step) map[string]string {
	if s.Queue == "" {
		return nil
	}
	out := map[string]string{QueueLabel: s.Queue}
	if s.WorkloadPriorityClass != "" {
		out[WorkloadPriorityClassLabel] = s.WorkloadPriorityClass
	}
	return out
}

// PreemptionRetries is how many times the engines try again a queued
// container step that says nothing of retries. Kueue preempts a workload
// of its pod integration by deleting its pod (Pod.Stop,
// pkg/controller/jobs/pod/pod_controller.go, sigs.k8s.io/kueue v0.19.2),
// where it suspends a Job, MPIJob or TrainJob and requeues it; a step
// whose pod is deleted and is not tried again fails the run.
const PreemptionRetries = 3

// RetriedOnPreemption says whether the engines try step s again after
// Kueue preempts it: a container step, whose pod Kueue admits, that runs
// in a queue and has no retries of its own (retries: {limit: 0} keeps
// it at one try).
func RetriedOnPreemption(s *ir.Step) bool {
	return s.Queue != "" && s.Kind == ir.Container && s.Retry == nil
}
