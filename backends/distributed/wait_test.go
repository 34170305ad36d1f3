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
  create) cat > "$FAKE/created.$(ls "$FAKE" | grep -c created)"; [ "$4" = "-o" ] && echo "mpijob.kubeflow.org/job-abcde" ;;
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
	for _, tc := range []struct {
		name, state, timeout string
		code                 int
		want                 string
	}{
		{"succeeds", "Created Running Succeeded", "0", 0, "job-abcde: Succeeded"},
		{"fails", "Created Failed", "0", 1, "job-abcde: Failed"},
		{"times out", "Created Running", "600", 1, "kubectl delete mpijob.kubeflow.org/job-abcde"},
		{"cannot read status", "", "0", 1, "cannot read its status"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, code := runWait(t, tc.state, tc.timeout)
			if code != tc.code || !strings.Contains(out, tc.want) {
				t.Errorf("exit %d, want %d; want %q in:\n%s", code, tc.code, tc.want, out)
			}
			if !strings.Contains(out, `"name":"run-train-pod","uid":"1234"`) {
				t.Errorf("the job is not owned by the step's pod:\n%s", out)
			}
		})
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
