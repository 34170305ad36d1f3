package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mlcube-compile/mlcube-compile/internal/manifestcheck"
	"sigs.k8s.io/yaml"
)

// refusedContainer is what point 1 of issue 20 says for a MedPerf
// container a cluster cannot run.
const refusedContainer = "cannot run on Kubernetes"

// TestMedPerfContainersCompile compiles every container_config*.yaml of
// MedPerf's own (../shared/cubes/medperf) for Argo and Tekton whole and
// for a Job a task at a time, each output through the upstream
// validators; an archive, Singularity or encrypted container is refused
// at its container_type, saying what to do.
func TestMedPerfContainersCompile(t *testing.T) {
	root := filepath.Join(sharedCubes(t), "medperf")
	files, _ := filepath.Glob(filepath.Join(root, "*", "*", "container_config*.yaml"))
	if len(files) < 11 {
		t.Fatalf("found %d container_config*.yaml files under %s, want at least 11", len(files), root)
	}
	for _, f := range files {
		rel, _ := filepath.Rel(root, f)
		var top struct {
			ContainerType string                    `json:"container_type"`
			Tasks         map[string]map[string]any `json:"tasks"`
		}
		src, err := os.ReadFile(f)
		if err != nil || yaml.Unmarshal(src, &top) != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if top.ContainerType != "DockerImage" {
			t.Run("refused/"+rel, func(t *testing.T) {
				out, stderr, code := compileArgs(t, "mlcube-compile", "--mlcube", f)
				if code != 1 || out != "" ||
					!strings.Contains(stderr, ":1:1: container_type: "+top.ContainerType+" "+refusedContainer) ||
					!strings.Contains(stderr, "push the image to a registry and use container_type: DockerImage") {
					t.Fatalf("exit %d, stdout %q, stderr %q; want exit 1 and the refusal at container_type", code, out, stderr)
				}
			})
			continue
		}
		for _, backend := range []string{"argo", "tekton"} {
			t.Run(backend+"/"+rel, func(t *testing.T) {
				out, stderr, code := compileArgs(t, "mlcube-compile", "--backend", backend, "--mlcube", f)
				if code != 0 {
					t.Fatalf("exit %d: %s", code, stderr)
				}
				validators[backend](t, rel, out)
			})
		}
		for task := range top.Tasks {
			t.Run("job/"+rel+"/"+task, func(t *testing.T) {
				out, stderr, code := compileArgs(t, "mlcube-compile", "--backend", "job", "--mlcube", f, "--task", task)
				if code != 0 {
					t.Fatalf("exit %d: %s", code, stderr)
				}
				validators["job"](t, rel, out)
			})
		}
	}
}

// TestMedPerfChestXRayFlow checks the chestxray example's DAG (prepare →
// sanity-check → statistics, and infer → evaluate) and that its data, labels
// and predictions flow by path: what one step mounts writable, a later
// step mounts read-only from the same place in the workspace.
func TestMedPerfChestXRayFlow(t *testing.T) {
	out, stderr, code := compileArgs(t, append([]string{"mlcube-compile", "--backend", "argo"},
		exampleArgs(filepath.Join(repoRoot, "examples", "medperf-chestxray"))...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	wf := manifestcheck.ValidateWorkflow(t, "medperf-chestxray", out)
	deps := map[string][]string{}
	mounts := map[string]map[string]string{} // step → mount path → subPath (ro marked)
	for _, task := range wf.Spec.Templates[0].DAG.Tasks {
		deps[task.Name] = task.Dependencies
		for _, tmpl := range wf.Spec.Templates {
			if tmpl.Name != task.Template || tmpl.Container == nil {
				continue
			}
			mounts[task.Name] = map[string]string{}
			for _, m := range tmpl.Container.VolumeMounts {
				mode := "rw"
				if m.ReadOnly {
					mode = "ro"
				}
				mounts[task.Name][m.MountPath] = mode + " " + m.SubPath
			}
		}
	}
	wantDeps := map[string][]string{
		"configs": nil, "prepare": {"configs"}, "sanity-check": {"prepare"},
		"statistics": {"sanity-check"}, "infer": {"sanity-check"}, "evaluate": {"infer"},
	}
	for k, v := range deps {
		slices.Sort(v)
		if len(v) == 0 {
			deps[k] = nil
		}
	}
	if diff := cmp.Diff(wantDeps, deps); diff != "" {
		t.Errorf("dependencies (-want +got):\n%s", diff)
	}
	flows := []struct{ from, fromPath, to, toPath, sub string }{
		{"prepare", "/mlcommons/volumes/data", "sanity-check", "/mlcommons/volumes/data", "prepared/data"},
		{"prepare", "/mlcommons/volumes/labels", "evaluate", "/mlcommons/volumes/labels", "prepared/labels"},
		{"prepare", "/mlcommons/volumes/data", "infer", "/mlcommons/volumes/data", "prepared/data"},
		{"infer", "/mlcommons/volumes/predictions", "evaluate", "/mlcommons/volumes/predictions", "predictions"},
	}
	for _, f := range flows {
		if got, want := mounts[f.from][f.fromPath], "rw "+f.sub; got != want {
			t.Errorf("%s mounts %s as %q, want %q", f.from, f.fromPath, got, want)
		}
		if got, want := mounts[f.to][f.toPath], "ro "+f.sub; got != want {
			t.Errorf("%s mounts %s as %q, want %q", f.to, f.toPath, got, want)
		}
	}
	if got := mounts["evaluate"]["/mlcommons/volumes/results"]; got != "rw results" {
		t.Errorf("evaluate's results.yaml is mounted by its folder as %q, want rw results", got)
	}
}

// TestGoldenMedPerfJob is the chestxray example's metrics container as a
// Job, the one backend that runs one task: its golden file is
// testdata/golden/job/medperf-chestxray-metrics.yaml.
func TestGoldenMedPerfJob(t *testing.T) {
	dir := filepath.Join(repoRoot, "examples", "medperf-chestxray")
	jobGolden(t, "medperf-chestxray-metrics.yaml", "--mlcube", filepath.Join(dir, "metrics"), "--platform",
		filepath.Join(dir, "platform.yaml"))
}
