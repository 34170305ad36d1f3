package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"testing/fstest"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	tektonv1 "github.com/tektoncd/pipeline/pkg/apis/pipeline/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	psaapi "k8s.io/pod-security-admission/api"
	"k8s.io/pod-security-admission/policy"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/mlcube-compile/mlcube-compile/compiler"
	"github.com/mlcube-compile/mlcube-compile/diag"
	"github.com/mlcube-compile/mlcube-compile/driver"
	"github.com/mlcube-compile/mlcube-compile/internal/examples"
)

// restrictedPlatform is what a user whose namespace enforces the
// restricted Pod Security Standard adds to an example's platform: the
// setting, the Tekton cluster's flag, and, since the examples' images
// run as root, a user of their own.
var restrictedPlatform = map[string]any{
	"podSecurity":     "restricted",
	"tekton":          map[string]any{"setSecurityContext": true},
	"securityContext": map[string]any{"runAsUser": 1000, "runAsGroup": 1000},
}

// refusedRestricted are the examples that cannot run under restricted,
// and the code that says why.
var refusedRestricted = map[string]diag.Code{
	"shared-gpu-queue": diag.CannotLockDown, // sshd reads root's keys (/root/.ssh)
	"dask-benchmark":   diag.CannotLockDown, // setup packages installed as root
}

// Every pod of every example, compiled with podSecurity: restricted, is
// admitted by Kubernetes' own restricted policy (k8s.io/pod-security-
// admission v0.36.6, the evaluator the API server runs), on every engine
// that runs it: the pods the engines make of the compiler's templates,
// with the engines' own containers as they add them (Argo's init and wait
// with the controller's default executor config, Tekton's init containers
// with set-security-context), and the pods of the jobs it creates. What
// cannot comply is refused with its code.
func TestRestrictedPodSecurity(t *testing.T) {
	eval, err := policy.NewEvaluator(policy.DefaultChecks(), nil)
	if err != nil {
		t.Fatal(err)
	}
	level := psaapi.LevelVersion{Level: psaapi.LevelRestricted, Version: psaapi.MajorMinorVersion(1, 36)}
	t.Chdir(filepath.Join("..", ".."))
	list, err := examples.List(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, ex := range list {
		if strings.HasSuffix(ex.Platform, "docker.yaml") {
			continue // a legacy platform file has no podSecurity
		}
		t.Run(ex.Name, func(t *testing.T) {
			opts := restrictedOptions(t, ex)
			for _, backend := range []string{"argo", "tekton", "job"} {
				req := driver.Request{Compiler: opts, Backend: backend}
				p, diags, err := driver.IR(req)
				if err == nil && !diags.HasErrors() {
					_, err = driver.Emit(p, req)
				}
				if want, ok := refusedRestricted[ex.Name]; ok {
					if backend != "job" && !hasCode(diags, err, want) {
						t.Errorf("%s: want refused with %s, got %v %v", backend, want, diags, err)
					}
					continue
				}
				if err != nil || diags.HasErrors() {
					if backend == "job" || hasCode(diags, err, diag.EngineCannotRun) {
						continue // not of a shape the engine runs, or params a Job needs
					}
					t.Fatalf("%s: %v %v", backend, diags, err)
				}
				res, _ := driver.Emit(p, req)
				pods := podsOf(t, backend, res.Run)
				if len(pods) == 0 {
					t.Errorf("%s: no pods", backend)
				}
				for name, spec := range pods {
					for _, r := range eval.EvaluatePod(level, &metav1.ObjectMeta{}, &spec) {
						if !r.Allowed {
							t.Errorf("%s: pod %s: %s: %s", backend, name, r.ForbiddenReason, r.ForbiddenDetail)
						}
					}
				}
			}
		})
	}
}

// hasCode says whether the diagnostics, or the error's, have code.
func hasCode(diags diag.Diagnostics, err error, code diag.Code) bool {
	var all diag.Diagnostics
	all = append(all, diags...)
	var ds diag.Diagnostics
	if errors.As(err, &ds) {
		all = append(all, ds...)
	}
	return slices.ContainsFunc(all, func(d diag.Diagnostic) bool { return d.Code == code })
}

// restrictedOptions compiles example ex from memory, its platform file
// with restrictedPlatform laid over it.
func restrictedOptions(t *testing.T, ex examples.Example) compiler.Options {
	fsys := fstest.MapFS{}
	dir := filepath.Dir(ex.Task)
	if ex.MLCube != "" {
		dir = ex.MLCube
	}
	err := filepath.WalkDir("examples", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		fsys[filepath.ToSlash(path)] = &fstest.MapFile{Data: data}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	plat := map[string]any{}
	platform := filepath.Join(dir, "platform.yaml")
	if ex.Platform != "" {
		platform = ex.Platform
		if err := yaml.Unmarshal(fsys[filepath.ToSlash(platform)].Data, &plat); err != nil {
			t.Fatal(err)
		}
	}
	for k, v := range restrictedPlatform {
		if m, ok := plat[k].(map[string]any); ok {
			for kk, vv := range v.(map[string]any) {
				m[kk] = vv
			}
			continue
		}
		plat[k] = v
	}
	data, err := yaml.Marshal(plat)
	if err != nil {
		t.Fatal(err)
	}
	fsys[filepath.ToSlash(platform)] = &fstest.MapFile{Data: data}
	return compiler.Options{MLCube: ex.MLCube, Task: ex.Task, Platform: platform, Values: ex.Values, FS: fsys}
}

// podsOf are the pods an engine makes of run, and those of the jobs its
// steps create, by name.
func podsOf(t *testing.T, backend string, run any) map[string]corev1.PodSpec {
	raw, err := json.Marshal(run)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]corev1.PodSpec{}
	switch backend {
	case "argo":
		var wf wfv1.Workflow
		decode(t, raw, &wf)
		argoPods(t, wf.Spec.Templates, out)
	case "tekton":
		var pr tektonv1.PipelineRun
		decode(t, raw, &pr)
		tektonPods(pr, out)
	case "job":
		var job batchv1.Job
		decode(t, raw, &job)
		out["job"] = job.Spec.Template.Spec
	}
	for name, spec := range out {
		for i, c := range append(slices.Clone(spec.Containers), spec.InitContainers...) {
			for _, e := range c.Env {
				if e.Name == "MANIFEST" {
					jobPods(t, name+"/job"+string(rune('0'+i)), strings.ReplaceAll(e.Value, "$$", "$"), out)
				}
			}
		}
	}
	return out
}

func decode(t *testing.T, raw []byte, into any) {
	t.Helper()
	if err := json.Unmarshal(raw, into); err != nil {
		t.Fatal(err)
	}
}

// argoPods are the pods Argo's controller makes of the templates: its
// init and wait containers around a container or containerSet template's,
// with the securityContext of the controller's executor config (none by
// default), then the template's podSpecPatch; a resource template's
// executor containers locked down as Argo locks them
// (createWorkflowPod and newExecContainer, workflow/controller/
// workflowpod.go, v3.7.18). A resource template's manifest is a job's.
func argoPods(t *testing.T, templates []wfv1.Template, out map[string]corev1.PodSpec) {
	for _, tmpl := range templates {
		exec := func(name string, sc *corev1.SecurityContext) corev1.Container {
			return corev1.Container{Name: name, Image: "argoexec", SecurityContext: sc}
		}
		spec := corev1.PodSpec{SecurityContext: tmpl.SecurityContext, InitContainers: []corev1.Container{exec("init", nil)}}
		switch {
		case tmpl.Container != nil:
			spec.Containers = []corev1.Container{exec("wait", nil), *tmpl.Container}
		case tmpl.ContainerSet != nil:
			spec.Containers = []corev1.Container{exec("wait", nil)}
			for _, c := range tmpl.ContainerSet.Containers {
				spec.Containers = append(spec.Containers, c.Container)
			}
		case tmpl.Resource != nil:
			spec.InitContainers = []corev1.Container{exec("init", argoMinimal())}
			spec.Containers = []corev1.Container{exec("wait", argoMinimal()), exec("main", argoMinimal())}
			if tmpl.Resource.Manifest != "" {
				jobPods(t, tmpl.Name+"/job", tmpl.Resource.Manifest, out)
			}
		default:
			continue
		}
		for _, c := range tmpl.InitContainers {
			spec.InitContainers = append(spec.InitContainers, c.Container)
		}
		if tmpl.PodSpecPatch != "" {
			spec = patched(t, spec, tmpl.PodSpecPatch)
		}
		out[tmpl.Name] = spec
	}
}

// argoMinimal is what Argo gives the executor containers of a resource
// template where its executor config gives none: user 8737, no
// privilege escalation, no capability, the runtime's seccomp profile
// (MinimalCtrSC, workflow/common/security_context.go, v3.7.18).
func argoMinimal() *corev1.SecurityContext {
	return &corev1.SecurityContext{
		RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To[int64](8737), AllowPrivilegeEscalation: ptr.To(false),
		Capabilities:   &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
		SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
	}
}

// patched is spec with a podSpecPatch applied as Argo applies it
// (ApplyPodSpecPatch, workflow/util/util.go).
func patched(t *testing.T, spec corev1.PodSpec, patch string) corev1.PodSpec {
	t.Helper()
	raw, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	p, err := yaml.YAMLToJSON([]byte(patch))
	if err != nil {
		t.Fatal(err)
	}
	merged, err := strategicpatch.StrategicMergePatch(raw, p, corev1.PodSpec{})
	if err != nil {
		t.Fatal(err)
	}
	var out corev1.PodSpec
	decode(t, merged, &out)
	return out
}

// tektonPods are the pods of the run's tasks: each step a container,
// Tekton's init containers with the securityContext its
// set-security-context flag gives them (pkg/pod/pod.go,
// security_context_config.go), the pod's own from the task's
// taskRunSpec.
func tektonPods(pr tektonv1.PipelineRun, out map[string]corev1.PodSpec) {
	tasks := pr.Spec.PipelineSpec.Tasks
	tasks = append(tasks, pr.Spec.PipelineSpec.Finally...)
	for _, task := range tasks {
		if task.TaskSpec == nil {
			continue
		}
		spec := corev1.PodSpec{InitContainers: []corev1.Container{{Name: "prepare", SecurityContext: tektonInit()}}}
		for _, trs := range pr.Spec.TaskRunSpecs {
			if trs.PipelineTaskName == task.Name && trs.PodTemplate != nil {
				spec.SecurityContext = trs.PodTemplate.SecurityContext
			}
		}
		for _, st := range task.TaskSpec.Steps {
			spec.Containers = append(spec.Containers,
				corev1.Container{Name: st.Name, Image: st.Image, SecurityContext: st.SecurityContext, Env: st.Env})
		}
		out[task.Name] = spec
	}
}

// tektonInit is the securityContext Tekton's set-security-context flag
// gives its init containers on Linux: runAsNonRoot, no privilege
// escalation, no capability, the runtime's seccomp profile
// (LinuxSecurityContext, pkg/pod/security_context_config.go, v1.15.0).
func tektonInit() *corev1.SecurityContext {
	return &corev1.SecurityContext{
		RunAsNonRoot: ptr.To(true), AllowPrivilegeEscalation: ptr.To(false),
		Capabilities:   &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
		SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
	}
}

// jobPods adds the pod templates of a job's manifest: every mapping of
// it with containers (an MPIJob's replicas, a DaskJob's pods, the node
// pods a TrainJob's runtime patch sets).
func jobPods(t *testing.T, name, manifest string, out map[string]corev1.PodSpec) {
	var doc any
	if err := yaml.Unmarshal([]byte(manifest), &doc); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			if _, ok := v["containers"]; ok {
				raw, _ := json.Marshal(v)
				var spec corev1.PodSpec
				decode(t, raw, &spec)
				out[name+path] = spec
				return
			}
			keys := make([]string, 0, len(v))
			for k := range v {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				walk(path+"."+k, v[k])
			}
		case []any:
			for i, e := range v {
				walk(path+"["+string(rune('0'+i))+"]", e)
			}
		}
	}
	walk("", doc)
}
