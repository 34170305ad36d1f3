package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/mlcube-compile/mlcube-compile/compiler"
	"github.com/mlcube-compile/mlcube-compile/driver"
	"github.com/mlcube-compile/mlcube-compile/internal/examples"
	"github.com/mlcube-compile/mlcube-compile/internal/manifestcheck"
)

// backendNames are the --backend values, in the order help lists them.
var backendNames = driver.Backends()

var update = flag.Bool("update", false, "rewrite the golden files")

// repoRoot is where examples/ and testdata/ live, two levels up.
const repoRoot = "../.."

// exampleArgs gives the flags an example is compiled with, by the
// convention of internal/examples.
func exampleArgs(dir string) []string { return examples.At(dir).Args() }

// compileArgs runs the command and returns stdout, stderr and the exit code.
func compileArgs(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return stdout.String(), stderr.String(), code
}

// compileDir compiles the cube, pipeline and platform of dir (those that
// exist) for backend; it returns stdout and stderr, failing on exit != 0.
func compileDir(t *testing.T, backend, dir string, extra ...string) (string, string) {
	t.Helper()
	args := append([]string{"mlcube-compile", "--backend", backend}, exampleArgs(dir)...)
	out, stderr, code := compileArgs(t, append(args, extra...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	return out, stderr
}

// compileExample compiles examples/name for backend, which must succeed.
func compileExample(t *testing.T, backend, name string) string {
	t.Helper()
	out, _ := compileDir(t, backend, filepath.Join(repoRoot, "examples", name))
	return out
}

// goldenTarget is a --backend, and a --kind other than its default, whose
// output for every example is in testdata/golden/<dir>.
type goldenTarget struct{ backend, kind, dir string }

// goldenTargets are every backend's default kind, then Tekton's Pipeline.
func goldenTargets() []goldenTarget {
	var out []goldenTarget
	for _, b := range backendNames {
		out = append(out, goldenTarget{backend: b, dir: b})
	}
	return append(out, goldenTarget{backend: "tekton", kind: "pipeline", dir: "tekton-pipeline"})
}

func TestGolden(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(repoRoot, "examples", "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	for _, target := range goldenTargets() {
		for _, dir := range dirs {
			name := filepath.Base(dir)
			t.Run(target.dir+"/"+name, func(t *testing.T) {
				args := []string{"mlcube-compile", "--backend", target.backend}
				if target.kind != "" {
					args = append(args, "--kind", target.kind)
				}
				args = append(args, exampleArgs(dir)...)
				golden := filepath.Join(repoRoot, "testdata", "golden", target.dir, name+".yaml")
				first, stderr, code := compileArgs(t, args...)
				if code != 0 {
					if why := notForBackend(t, target.backend, target.kind, manifestcheck.Specs(dir)); why != nil {
						if _, err := os.Stat(golden); err == nil {
							t.Errorf("%s does not apply to %s, but %s exists", name, target.dir, golden)
						}
						t.Skipf("not for this backend: %v", why)
					}
				}
				if code != 0 {
					t.Fatalf("exit %d: %s", code, stderr)
				}
				second, _, _ := compileArgs(t, args...)
				if first != second {
					t.Fatalf("two compiles of the same inputs differ")
				}
				compareGolden(t, golden, first)
				validators[target.dir](t, golden, first)
				if target.dir == "tekton-pipeline" {
					validateTknStart(t, golden, first, stderr)
				}
			})
		}
	}
}

// notForBackend says why backend does not run, as kind, pipelines of the
// shape of the one opts names as written (its engine's Accepts): the job
// backend runs one container step, with a value for every param it uses,
// and Tekton and the Job need a bucket that Argo's artifact repository
// does not name. Nil when it runs them, so that its refusal is a fault.
func notForBackend(t *testing.T, backend, kind string, opts compiler.Options) error {
	t.Helper()
	return manifestcheck.Accepts(t, backend, opts, kind)
}

// compareGolden compares got with the golden file, or rewrites the file
// under -update.
func compareGolden(t *testing.T, golden, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./... -update)", err)
	}
	if string(want) != got {
		t.Errorf("output differs from %s; run go test ./... -update and read the diff\ngot:\n%s", golden, got)
	}
}

// sharedCubes finds the real MLCommons cubes in ../shared beside the repo.
func sharedCubes(t *testing.T) string {
	dir := filepath.Join(repoRoot, "..", "shared", "cubes")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("skipping: %s is absent, so the real MLCommons cubes cannot be compiled", dir)
	}
	return dir
}

// TestSharedCubesCompile compiles every cube in ../shared/cubes and, in
// the MLCube 1.0 layout, ../shared/cubes-1.0, on every backend.
func TestSharedCubesCompile(t *testing.T) {
	root := sharedCubes(t)
	var files []string
	for _, dir := range []string{root, filepath.Join(filepath.Dir(root), "cubes-1.0")} {
		err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
			if err == nil && info.Name() == "mlcube.yaml" {
				files = append(files, p)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(files) < 14 {
		t.Fatalf("found %d mlcube.yaml files under %s and cubes-1.0 beside it, want at least 14", len(files), root)
	}
	for _, f := range files {
		rel, _ := filepath.Rel(filepath.Dir(root), f)
		for _, backend := range backendNames {
			t.Run(backend+"/"+rel, func(t *testing.T) {
				out, stderr, code := compileArgs(t, "mlcube-compile", "--backend", backend, "--mlcube", f)
				if code != 0 {
					if why := notForBackend(t, backend, "", compiler.Options{MLCube: f}); why != nil {
						t.Skipf("not for this backend: %v", why)
					}
				}
				if code != 0 {
					t.Fatalf("exit %d: %s", code, stderr)
				}
				validators[backend](t, rel, out)
			})
		}
	}
	t.Run("legacy test_cube with --platform and --task", func(t *testing.T) {
		dir := filepath.Join(root, "mlcube_k8s", "test_cube")
		out, stderr, code := compileArgs(t, "mlcube-compile", "--mlcube", dir,
			"--platform", filepath.Join(dir, "platforms", "docker.yaml"),
			"--task", filepath.Join(dir, "run", "kubernetes.yaml"))
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		wf := manifestcheck.ValidateWorkflow(t, "test_cube", out)
		c := wf.Spec.Templates[1].Container
		want := []string{"--test_data=/mnt/mlcube/mlcube-input/workspace/data",
			"--test_model=/mnt/mlcube/mlcube-output/workspace/model"}
		if strings.Join(c.Args, " ") != strings.Join(want, " ") || c.Image != "test/test:v1.0" {
			t.Fatalf("args %q image %q; want %q and test/test:v1.0", c.Args, c.Image, want)
		}
	})
}

func TestMNISTRunsDownloadBeforeTrain(t *testing.T) {
	root := sharedCubes(t)
	out, stderr, code := compileArgs(t, "mlcube-compile", "--backend", "argo", "--mlcube",
		filepath.Join(root, "mlcube_examples", "mnist"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	wf := manifestcheck.ValidateWorkflow(t, "mnist", out)
	tasks := wf.Spec.Templates[0].DAG.Tasks
	if len(tasks) != 2 || tasks[1].Name != "train" || strings.Join(tasks[1].Dependencies, ",") != "download" {
		t.Fatalf("want train to depend on download, got %+v", tasks)
	}
}

// TestGPUExampleOnEveryBackend checks what the GPU example must give on
// each backend: the GPU limit, the GPU node selector and toleration, and
// the platform's fsGroup.
func TestGPUExampleOnEveryBackend(t *testing.T) {
	dir := filepath.Join(repoRoot, "examples", "single-gpu-task")
	for _, backend := range backendNames {
		t.Run(backend, func(t *testing.T) {
			out, stderr, code := compileArgs(t, append([]string{"mlcube-compile", "--backend", backend}, exampleArgs(dir)...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var pod podFacts
			switch backend {
			case "argo":
				tmpl := manifestcheck.ValidateWorkflow(t, backend, out).Spec.Templates[1]
				pod = podFacts{tmpl.Container.Resources.Limits, tmpl.NodeSelector, tmpl.Tolerations, tmpl.SecurityContext}
			case "tekton":
				// The step mounts the claim: Tekton's affinity assistant
				// places it, and the run's pod template, which places the
				// assistant, holds its scheduling.
				pr := manifestcheck.ValidatePipelineRun(t, backend, out)
				run, spec := pr.Spec.TaskRunTemplate.PodTemplate, pr.Spec.TaskRunSpecs[0].PodTemplate
				steps := pr.Spec.PipelineSpec.Tasks[0].TaskSpec.Steps // the user's after the one that makes its folders
				pod = podFacts{steps[len(steps)-1].ComputeResources.Limits, run.NodeSelector, run.Tolerations, spec.SecurityContext}
			case "job":
				spec := manifestcheck.ValidateJob(t, backend, out).Spec.Template.Spec
				pod = podFacts{spec.Containers[0].Resources.Limits, spec.NodeSelector, spec.Tolerations, spec.SecurityContext}
			default:
				t.Fatalf("no check for backend %s", backend)
			}
			if q := pod.limits["nvidia.com/gpu"]; q.Value() != 1 {
				t.Errorf("GPU limit %v, want nvidia.com/gpu: 1", pod.limits)
			}
			if pod.nodeSelector["kops.k8s.io/dl-instance"] != "true" {
				t.Errorf("node selector %v, want the platform's GPU one", pod.nodeSelector)
			}
			if len(pod.tolerations) != 1 || pod.tolerations[0].Key != "nvidia.com/gpu" {
				t.Errorf("tolerations %v, want the platform's GPU one", pod.tolerations)
			}
			if pod.security == nil || pod.security.FSGroup == nil || *pod.security.FSGroup != 1000 {
				t.Errorf("security context %v, want fsGroup 1000", pod.security)
			}
		})
	}
}

// podFacts are the scheduling facts of a step's pod, wherever a backend
// writes them.
type podFacts struct {
	limits       corev1.ResourceList
	nodeSelector map[string]string
	tolerations  []corev1.Toleration
	security     *corev1.PodSecurityContext
}

// TestSeed000Job compiles the MLCube k8s runner's test cube to the Job that
// seed 000 shows, field for field; only the cube's own names differ.
func TestSeed000Job(t *testing.T) {
	dir := filepath.Join(sharedCubes(t), "mlcube_k8s", "test_cube")
	out, stderr, code := compileArgs(t, "mlcube-compile", "--backend", "job", "--mlcube", dir,
		"--platform", filepath.Join(dir, "platforms", "docker.yaml"), "--task", filepath.Join(dir, "run", "kubernetes.yaml"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	j := manifestcheck.ValidateJob(t, "test_cube", out)
	spec := j.Spec.Template.Spec
	if len(spec.Containers) != 1 {
		t.Fatalf("%d containers, want 1", len(spec.Containers))
	}
	c := spec.Containers[0]
	type jobFacts struct {
		GenerateName, Container, Image string
		Args                           []string
		Mounts                         []corev1.VolumeMount
		Volumes                        []corev1.Volume
		RestartPolicy                  corev1.RestartPolicy
		BackoffLimit                   int32
	}
	got := jobFacts{j.GenerateName, c.Name, c.Image, c.Args, c.VolumeMounts, spec.Volumes, spec.RestartPolicy,
		*j.Spec.BackoffLimit}
	claim := func(name string) corev1.Volume {
		return corev1.Volume{Name: name,
			VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: name}}}
	}
	want := jobFacts{
		GenerateName: "mlcube-test-cube-",
		Container:    "mlcube-container",
		Image:        "test/test:v1.0",
		Args: []string{"--test_data=/mnt/mlcube/mlcube-input/workspace/data",
			"--test_model=/mnt/mlcube/mlcube-output/workspace/model"},
		Mounts: []corev1.VolumeMount{{Name: "mlcube-input", MountPath: "/mnt/mlcube/mlcube-input"},
			{Name: "mlcube-output", MountPath: "/mnt/mlcube/mlcube-output"}},
		Volumes:       []corev1.Volume{claim("mlcube-input"), claim("mlcube-output")},
		RestartPolicy: corev1.RestartPolicyNever,
		BackoffLimit:  4,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the Job differs from seed 000's (-want +got):\n%s", diff)
	}
}
