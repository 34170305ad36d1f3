//go:build e2e

package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	corev1 "k8s.io/api/core/v1"
)

// stopBound is how soon after spec.shutdown: Stop a stopped step's pod
// ends whatever its program does with signals: the run's exit handler
// deletes it (backends/argo/distributed.go, exitHandler), and the kubelet
// kills it at the latest terminationGracePeriodSeconds (30 s, the
// default) after that. The minute is for the controller to fail the step
// and start the handler's pod on a loaded node.
const stopBound = 30*time.Second + time.Minute

// ignoresSIGTERM is a step's program that outlives every SIGTERM, as a
// program whose first signal was lost does (Argo's controller signals a
// stopped pod once, by exec, ignoring a failed exec: signalContainers,
// workflow/controller/pod/queue.go), or one that handles it: a sleep in
// the background keeps the shell waiting where a signal interrupts it.
const ignoresSIGTERM = `trap 'echo SIGTERM ignored' TERM
while :; do sleep 1 & wait $!; done`

// TestE2ERealNodeStopDeletesPods stops a run of mnist (spec.shutdown:
// Stop, as `argo stop` does) whose first step's program ignores SIGTERM.
// Argo's one round of signals leaves it running; the run's exit handler
// deletes the pod, which the kubelet ends within its grace period, so the
// pod ends within stopBound of the stop, and the run is Failed with
// Argo's message for a stop. The control run, without the exit handler,
// shows the pod still running past that bound (then the test deletes it).
func TestE2ERealNodeStopDeletesPods(t *testing.T) {
	c := e2eCluster(t)
	t.Parallel()
	for _, tc := range []struct {
		name        string
		exitHandler bool
	}{{"stop-deletes", true}, {"stop-deletes-control", false}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := c.realRunOf(t, "mnist", tc.name)
			r.template(t, "download").Container.Command = []string{"sh", "-c", ignoresSIGTERM}
			if !tc.exitHandler {
				r.wf.Spec.OnExit = ""
			}
			created := r.create(t)
			pod := r.runningPod(t, "download", 3*time.Minute)
			r.c.must(t, "", "-n", r.ns, "patch", created, "--type=merge", "-p", `{"spec":{"shutdown":"Stop"}}`)
			stopped := time.Now()
			done := r.c.wait(t, r.ns, created, 2*time.Minute)
			if done.Status.Phase != wfv1.WorkflowFailed || done.Status.Message != "Stopped with strategy 'Stop'" {
				t.Errorf("a stopped run is %s (%q), want Failed with Argo's message for a stop\n%s", done.Status.Phase,
					done.Status.Message, nodeSummary(done))
			}
			if !tc.exitHandler {
				phase := r.podState(t, pod, stopped.Add(stopBound))
				t.Logf("control %s: %s; its pod %s is %s %s after spec.shutdown, without the exit handler", done.Name,
					done.Status.Phase, pod, phase, time.Since(stopped).Round(time.Second))
				if phase != string(corev1.PodRunning) {
					t.Errorf("control: pod %s is %s, want still Running: the test shows nothing", pod, phase)
				}
				r.c.must(t, "", "-n", r.ns, "delete", "pod", pod, "--grace-period=0", "--wait=false")
				return
			}
			phase := r.podState(t, pod, stopped.Add(stopBound))
			if phase == string(corev1.PodRunning) || phase == string(corev1.PodPending) {
				t.Fatalf("pod %s still %s at %s, %s after the stop (bound %s)\n%s", pod, phase, time.Now().Format(time.TimeOnly),
					time.Since(stopped).Round(time.Second), stopBound, nodeSummary(done))
			}
			t.Logf("%s: %s (%s); its pod %s, whose program ignores SIGTERM, ended (%s) %s after spec.shutdown (bound %s)\n%s",
				done.Name, done.Status.Phase, done.Status.Message, pod, phase, time.Since(stopped).Round(time.Second), stopBound,
				nodeSummary(done))
		})
	}
}

// podState waits until pod has ended or is gone, or deadline passes, and
// says how it is then: deleted, or its phase.
func (r *realRun) podState(t *testing.T, pod string, deadline time.Time) string {
	t.Helper()
	for ; ; time.Sleep(time.Second) {
		out := r.c.must(t, "", "-n", r.ns, "get", "pod", pod, "-o", "json", "--ignore-not-found")
		if strings.TrimSpace(out) == "" {
			return "deleted"
		}
		var p corev1.Pod
		if err := json.Unmarshal([]byte(out), &p); err != nil {
			t.Fatal(err)
		}
		if p.Status.Phase == corev1.PodFailed || p.Status.Phase == corev1.PodSucceeded || time.Now().After(deadline) {
			return string(p.Status.Phase)
		}
	}
}
