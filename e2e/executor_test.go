//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// executorAnnotation marks the pods of a workflow's resource steps, which
// KWOK leaves running (scripts/e2e/stages.yaml) and hostExecutor runs.
const executorAnnotation = "e2e.mlcube-compile.io/executor"

// hostExecutor plays the kubelet for the resource steps of workflows in
// one namespace: for each running pod annotated executorAnnotation it
// runs Argo's real executor, argoexec (built by scripts/e2e/build.sh from
// the controller's own module), on the host with the main container's
// command and env, then sets the pod's status from its exit code. What
// the step does to the cluster (create, apply, delete, wait for a
// condition) is argoexec's own code: kubectl in-process, as in a pod
// (workflow/executor/resource.go). Each run gets a private /tmp, where
// argoexec writes its manifest (privateTmp), and a kubeconfig whose
// context is the pod's namespace, as a pod's service account would give.
type hostExecutor struct {
	c        *cluster
	ns, dir  string
	argoexec string
	cancel   context.CancelFunc
	wg       sync.WaitGroup
	mu       sync.Mutex
	started  map[string]bool
	running  map[string]*os.Process // by pod
	ran      []string
}

func startHostExecutor(t *testing.T, c *cluster, ns string) *hostExecutor {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join(repoRoot, ".e2e", "run", "executor", ns))
	if err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	h := &hostExecutor{
		c: c, ns: ns, dir: dir, started: map[string]bool{}, running: map[string]*os.Process{},
		argoexec: envOr("E2E_ARGOEXEC", filepath.Join(repoRoot, ".e2e", "bin", "argoexec")),
	}
	if _, err := os.Stat(h.argoexec); err != nil {
		t.Fatalf("no argoexec: run scripts/e2e/build.sh (%v)", err)
	}
	if real, err := filepath.EvalSymlinks(h.argoexec); err == nil {
		h.argoexec, _ = filepath.Abs(real)
	}
	if _, err := os.Stat("/mnt"); err != nil {
		t.Fatalf("the host executor shows the original /tmp at /mnt: %v", err)
	}
	// The certificates go inside the kubeconfig, which must not name files
	// under /tmp, where each run gets a private one.
	kc := filepath.Join(h.dir, "kubeconfig")
	raw, err := c.run("", "config", "view", "--raw", "--flatten", "--minify")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(kc, []byte(raw), 0o600)
	if _, err := c.run("", "config", "set-context", "--current", "--namespace", ns, "--kubeconfig", kc); err != nil {
		t.Fatal(err)
	}
	termLog := "/dev/termination-log"
	_, before := os.Stat(termLog)
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel = cancel
	h.wg.Add(1)
	go h.watch(ctx, t, kc)
	t.Cleanup(func() {
		cancel()
		h.wg.Wait()
		// argoexec writes a failure's message there, as in a pod; the
		// host's /dev is not ours to leave it in.
		if _, err := os.Stat(termLog); err == nil && before != nil {
			os.Remove(termLog)
		}
	})
	return h
}

// watch starts an executor for every new pod to run, until ctx ends.
func (h *hostExecutor) watch(ctx context.Context, t *testing.T, kubeconfig string) {
	defer h.wg.Done()
	for ctx.Err() == nil {
		out, err := h.c.run("", "-n", h.ns, "get", "pods", "-o", "json")
		var pods corev1.PodList
		if err == nil && json.Unmarshal([]byte(out), &pods) == nil {
			for i := range pods.Items {
				pod := &pods.Items[i]
				h.mu.Lock()
				start := pod.Annotations[executorAnnotation] != "" && pod.Status.Phase == corev1.PodRunning && !h.started[pod.Name]
				if start {
					h.started[pod.Name] = true
				}
				h.mu.Unlock()
				if start {
					h.wg.Add(1)
					go h.run(ctx, t, kubeconfig, pod)
				}
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(300 * time.Millisecond):
		}
	}
}

// run runs pod's main container with argoexec and reports its end in the
// pod's status, as the kubelet would.
func (h *hostExecutor) run(ctx context.Context, t *testing.T, kubeconfig string, pod *corev1.Pod) {
	defer h.wg.Done()
	var main corev1.Container
	for _, c := range pod.Spec.Containers {
		if c.Name == "main" {
			main = c
		}
	}
	home := filepath.Join(h.dir, pod.Name)
	os.MkdirAll(home, 0o755)
	env := []string{"PATH=/usr/bin:/bin", "HOME=" + seenFromRun(home), "KUBECONFIG=" + seenFromRun(kubeconfig)}
	for _, e := range main.Env {
		switch {
		case e.ValueFrom != nil && e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "metadata.name":
			env = append(env, e.Name+"="+pod.Name)
		case e.ValueFrom != nil && e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "metadata.uid":
			env = append(env, e.Name+"="+string(pod.UID))
		case e.ValueFrom == nil:
			env = append(env, e.Name+"="+e.Value)
		}
	}
	// The controller gives the template to the init container; main reads
	// the copy init leaves in /var/run/argo, or ARGO_TEMPLATE first.
	for _, c := range pod.Spec.InitContainers {
		for _, e := range c.Env {
			if e.Name == "ARGO_TEMPLATE" {
				env = append(env, e.Name+"="+e.Value)
			}
		}
	}
	// The controller runs the step through the emissary,
	// "/var/run/argo/argoexec emissary … -- argoexec resource ACTION …",
	// which execs what follows "--": that is what runs here.
	command := append(append([]string{}, main.Command...), main.Args...)
	for i, word := range command {
		if word == "--" {
			command = command[i+1:]
			break
		}
	}
	args := command[1:]
	cmd := exec.CommandContext(ctx, "unshare",
		append([]string{"-m", "--propagation", "private", "sh", "-c", privateTmp, seenFromRun(h.argoexec)}, args...)...)
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	err := cmd.Start()
	if err == nil {
		h.mu.Lock()
		h.running[pod.Name] = cmd.Process
		h.mu.Unlock()
		err = cmd.Wait()
		h.mu.Lock()
		delete(h.running, pod.Name)
		h.mu.Unlock()
	}
	if ctx.Err() != nil {
		return
	}
	code := 0
	if err != nil {
		code = 1
		if x, ok := err.(*exec.ExitError); ok {
			code = x.ExitCode()
		}
	}
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	h.mu.Lock()
	entry := fmt.Sprintf("%s: argoexec %s: exit %d", pod.Name, strings.Join(args[:2], " "), code)
	if code != 0 {
		entry += "\n" + strings.Join(lines[max(0, len(lines)-12):], "\n")
	}
	h.ran = append(h.ran, entry)
	h.mu.Unlock()
	h.finish(t, pod, code, lines[len(lines)-1])
}

// finish sets the pod's phase and its containers' terminated states.
func (h *hostExecutor) finish(t *testing.T, pod *corev1.Pod, code int, message string) {
	now := time.Now().UTC().Format(time.RFC3339)
	phase := corev1.PodSucceeded
	if code != 0 {
		phase = corev1.PodFailed
	}
	var statuses []map[string]any
	for _, c := range pod.Spec.Containers {
		exit, reason := 0, "Completed"
		if c.Name == "main" && code != 0 {
			exit, reason = code, "Error"
		}
		statuses = append(statuses, map[string]any{
			"name": c.Name, "image": c.Image, "ready": false, "restartCount": 0, "started": false,
			"state": map[string]any{"terminated": map[string]any{"exitCode": exit, "reason": reason, "message": message,
				"startedAt": now, "finishedAt": now}},
		})
	}
	patch, _ := json.Marshal(map[string]any{"status": map[string]any{"phase": phase, "containerStatuses": statuses}})
	if _, err := h.c.run("", "-n", h.ns, "patch", "pod", pod.Name, "--subresource=status", "--type=merge", "-p",
		string(patch)); err != nil {
		t.Logf("%s: %v", pod.Name, err)
	}
}

// privateTmp runs "$0" "$@" with a /tmp of its own, where argoexec writes
// the manifest (always /tmp/manifest.yaml, so two runs at once would share
// it), in the mount namespace unshare made; the host's /tmp, where the
// repository may be, shows at /mnt there (seenFromRun).
const privateTmp = `mount --rbind /tmp /mnt && mount -t tmpfs tmpfs /tmp && exec "$0" "$@"`

// seenFromRun is where a run with a private /tmp sees the host's path p.
func seenFromRun(p string) string {
	if rest, ok := strings.CutPrefix(p, "/tmp/"); ok {
		return "/mnt/" + rest
	}
	return p
}

// terminate sends SIGTERM to every step running here, as the kubelet does
// when a workflow is stopped: Argo's controller then execs `argoexec kill
// 15 1` in each running pod's main container (the pod cleanup action
// terminateContainers, workflow/controller/pod/queue.go in v3.7 and
// v4), which cannot reach a step the suite runs on the host. Argo 4 waits
// for the pod to end before it ends the node; v3.7 ends the node at once.
func (h *hostExecutor) terminate() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, p := range h.running {
		p.Signal(syscall.SIGTERM)
	}
}

// log lists what the executor ran.
func (h *hostExecutor) log() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return strings.Join(h.ran, "\n")
}
