package distributed

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fakeTools puts a kubectl, sleep and date on PATH that log their calls,
// answer get with the words in the file state, and advance the clock by
// 100 seconds per call.
func fakeTools(t *testing.T, dir string) {
	t.Helper()
	scripts := map[string]string{
		"kubectl": `#!/bin/sh
echo "kubectl $*" >> "$FAKE/log"
case "$1" in
  create) cat > "$FAKE/created.$(ls "$FAKE" | grep -c created)"; ` +
			`[ "$4" = "-o" ] && echo "mpijob.kubeflow.org/job-abcde" ;;
  get) [ -f "$FAKE/state" ] || exit 1; cat "$FAKE/state" ;;
esac
exit 0
`,
		"sleep": "#!/bin/sh\nexit 0\n",
		"date": `#!/bin/sh
n=$(cat "$FAKE/clock" 2>/dev/null || echo 0)
echo $((n + 100)) > "$FAKE/clock"
echo "$n"
`,
	}
	for name, body := range scripts {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func runWait(t *testing.T, state, timeout string, extra ...string) (string, int) {
	t.Helper()
	dir := t.TempDir()
	fakeTools(t, dir)
	if state != "" {
		if err := os.WriteFile(filepath.Join(dir, "state"), []byte(state), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("sh", "-c", WaitScript)
	cmd.Env = append([]string{
		"PATH=" + dir + ":/usr/bin:/bin", "FAKE=" + dir,
		"MANIFEST={\"kind\":\"MPIJob\",\"x\":\"'; touch pwned; echo '$(id)\"}",
		"STATUS={.status.conditions[?(@.status==\"True\")].type}", "SUCCEEDED=Succeeded", "FAILED=Failed",
		"TIMEOUT=" + timeout, "POD_NAME=run-train-pod", "POD_UID=1234",
		"RESOURCE=mpijobs.kubeflow.org", "SELECTOR=mlcube-compile/run=run,mlcube-compile/step=train",
	}, extra...)
	cmd.Dir = dir
	out, _ := cmd.CombinedOutput()
	log, _ := os.ReadFile(filepath.Join(dir, "log"))
	created, _ := os.ReadFile(filepath.Join(dir, "created.0"))
	if !strings.Contains(string(created), `'; touch pwned; echo '$(id)`) {
		t.Errorf("kubectl did not get the manifest verbatim on stdin: %q", created)
	}
	if _, err := os.Stat(filepath.Join(dir, "pwned")); err == nil {
		t.Errorf("the manifest ran as shell code")
	}
	return string(out) + string(log), cmd.ProcessState.ExitCode()
}

func TestWaitScript(t *testing.T) {
	const deleted = "kubectl delete mpijob.kubeflow.org/job-abcde"
	for _, tc := range []struct {
		name, state, timeout string
		code                 int
		want                 string
		deletes              bool
	}{
		{"succeeds", "Created Running Succeeded", "0", 0, "job-abcde: Succeeded", false},
		{"fails", "Created Failed", "0", 1, "job-abcde: Failed", true},
		// A worker that failed before the launcher was created: no
		// condition says so, only the count.
		{"a worker fails", "Created " + FailedWorkers + "1", "0", 1, "job-abcde: 1 of its workers failed", true},
		{"no worker failed", "Created Running Succeeded " + FailedWorkers + "0", "0", 0, "job-abcde: Succeeded", false},
		{"times out", "Created Running", "600", 1, "not done after 600 seconds", true},
		{"cannot read status", "", "0", 1, "cannot read its status", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, code := runWait(t, tc.state, tc.timeout)
			if code != tc.code || !strings.Contains(out, tc.want) {
				t.Errorf("exit %d, want %d; want %q in:\n%s", code, tc.code, tc.want, out)
			}
			if strings.Contains(out, deleted) != tc.deletes {
				t.Errorf("deleted the job: %v, want %v:\n%s", !tc.deletes, tc.deletes, out)
			}
			first := strings.SplitN(out, "kubectl ", 3)
			if len(first) < 3 || !strings.HasPrefix(first[1], "delete mpijobs.kubeflow.org -l mlcube-compile/run=run,"+
				"mlcube-compile/step=train --ignore-not-found --cascade=foreground --wait=true --timeout=10m") {
				t.Errorf("the first kubectl call does not delete what an earlier attempt left, waiting for its pods:\n%s", out)
			}
		})
	}
}

// A stopped step (SIGTERM, as the kubelet sends when Tekton cancels or
// times out the TaskRun) deletes its job.
func TestWaitScriptStoppedDeletesJob(t *testing.T) {
	dir := t.TempDir()
	fakeTools(t, dir)
	os.WriteFile(filepath.Join(dir, "state"), []byte("Created Running"), 0o644)
	// The fake kubectl's get sends the script SIGTERM once it is waiting.
	os.WriteFile(filepath.Join(dir, "kubectl"), []byte(`#!/bin/sh
echo "kubectl $*" >> "$FAKE/log"
case "$1" in
  create) cat > /dev/null; echo "mpijob.kubeflow.org/job-abcde" ;;
  get) kill -TERM "$PPID"; cat "$FAKE/state" ;;
esac
exit 0
`), 0o755)
	cmd := exec.Command("sh", "-c", WaitScript)
	cmd.Env = []string{"PATH=" + dir + ":/usr/bin:/bin", "FAKE=" + dir, "MANIFEST={}", "STATUS=x", "SUCCEEDED=Succeeded",
		"FAILED=Failed", "TIMEOUT=0", "POD_NAME=p", "POD_UID=u", "RESOURCE=mpijobs.kubeflow.org", "SELECTOR=a=b"}
	cmd.Run()
	log, _ := os.ReadFile(filepath.Join(dir, "log"))
	if code := cmd.ProcessState.ExitCode(); code != 143 ||
		!strings.Contains(string(log), "kubectl delete mpijob.kubeflow.org/job-abcde") {
		t.Errorf("stopped: exit %d, want 143 and the job deleted:\n%s", code, log)
	}
}

func TestWaitScriptMakesAutoscaler(t *testing.T) {
	out, code := runWait(t, "Successful", "0", "SUCCEEDED=Successful", "AUTOSCALER_MIN=1", "AUTOSCALER_MAX=4")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if strings.Count(out, "kubectl create -f -") != 2 {
		t.Errorf("want the job and its autoscaler created:\n%s", out)
	}
}
