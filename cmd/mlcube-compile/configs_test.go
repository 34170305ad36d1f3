package main

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// Configs: the pipeline's configs: become a ConfigMap that every backend
// creates and its steps read as env.

// configEnv maps each env var set from a ConfigMap to "name/key".
func configEnv(env []corev1.EnvVar) map[string]string {
	out := map[string]string{}
	for _, e := range env {
		if e.ValueFrom != nil && e.ValueFrom.ConfigMapKeyRef != nil {
			out[e.Name] = e.ValueFrom.ConfigMapKeyRef.Name + "/" + e.ValueFrom.ConfigMapKeyRef.Key
		}
	}
	return out
}

// runConfigMap finds the ConfigMap a run reads: the document before the
// run, or, on Argo, the one the Workflow's first task applies.
func runConfigMap(t *testing.T, backend, out string) corev1.ConfigMap {
	t.Helper()
	doc := strings.Split(out, "\n---\n")[0]
	if backend == "argo" {
		wf := validateWorkflow(t, backend, out)
		dag := wf.Spec.Templates[0].DAG
		first := dag.Tasks[0]
		for _, task := range dag.Tasks[1:] {
			if len(task.Dependencies) == 0 {
				t.Errorf("task %s does not wait for %s, which creates the ConfigMap it reads", task.Name, first.Name)
			}
		}
		tmpl := wf.GetTemplateByName(first.Template)
		if tmpl == nil || tmpl.Resource == nil || tmpl.Resource.Action != "apply" || !slices.Contains(tmpl.Resource.Flags, "--server-side") {
			t.Fatalf("the first task %s does not apply the ConfigMap server-side: %+v", first.Name, tmpl)
		}
		doc = tmpl.Resource.Manifest
		// Each run that applies it is an owner, none the controller: the
		// API server allows one controller, and runs share the ConfigMap.
		var owned struct {
			Metadata struct{ OwnerReferences []map[string]any } `json:"metadata"`
		}
		yaml.Unmarshal([]byte(doc), &owned)
		if o := owned.Metadata.OwnerReferences; len(o) != 1 || o[0]["name"] != "{{workflow.name}}" || o[0]["uid"] != "{{workflow.uid}}" || o[0]["controller"] != nil {
			t.Errorf("the ConfigMap's owner references %v, want the run, not as controller", o)
		}
	}
	var cm corev1.ConfigMap
	if err := yaml.UnmarshalStrict([]byte(doc), &cm); err != nil || cm.Kind != "ConfigMap" {
		t.Fatalf("no ConfigMap: %v\n%s", err, doc)
	}
	return cm
}

func TestSingleGPUTaskConfigs(t *testing.T) {
	for _, backend := range backendNames {
		t.Run(backend, func(t *testing.T) {
			out := compileExample(t, backend, "single-gpu-task")
			cm := runConfigMap(t, backend, out)
			if !regexp.MustCompile(`^mnist-softmax-gpu-[a-z0-9]{10}$`).MatchString(cm.Name) || cm.Namespace != "ml-team" || len(cm.Data) != 3 {
				t.Errorf("ConfigMap %s/%s with %d keys, want ml-team/mnist-softmax-gpu-HASH with 3", cm.Namespace, cm.Name, len(cm.Data))
			}
			wantEnv := map[string]string{
				"GLOBALCFG":  cm.Name + "/GLOBALCFG",
				"DATASETCFG": cm.Name + "/DATASETCFG",
				"PROCESSCFG": cm.Name + "/PROCESSCFG",
			}
			var process map[string]map[string]int
			if err := json.Unmarshal([]byte(cm.Data["PROCESSCFG"]), &process); err != nil || process["eval"]["batchSize"] != 100 || process["export"]["modelVersion"] != 1 {
				t.Errorf("PROCESSCFG %q, want the mapping as JSON (%v)", cm.Data["PROCESSCFG"], err)
			}
			var env []corev1.EnvVar
			switch backend {
			case "argo":
				wf := validateWorkflow(t, backend, out)
				env = wf.GetTemplateByName("train").Container.Env
			case "tekton":
				env = validatePipelineRun(t, backend, out).Spec.PipelineSpec.Tasks[0].TaskSpec.Steps[0].Env
			case "job":
				env = validateJob(t, backend, out).Spec.Template.Spec.Containers[0].Env
			}
			if diff := cmp.Diff(wantEnv, configEnv(env)); diff != "" {
				t.Errorf("env from the ConfigMap (-want +got):\n%s", diff)
			}
		})
	}
}

// A ConfigMap's name follows its content: a run with edited configs reads
// a new ConfigMap, never the one an earlier run left.
func TestConfigMapNameFollowsContent(t *testing.T) {
	names := map[string]string{}
	for _, configs := range []string{"{MODE: fast, LEVEL: 3}", "{LEVEL: 3, MODE: fast}", "{MODE: slow, LEVEL: 3}", "{MODE: fast, LEVEL: 3, X: y}"} {
		specs := writeFiles(t, map[string]string{
			"mlcube.yaml":   goodCube,
			"pipeline.yaml": "configs: " + configs + "\nsteps:\n  prepare: {task: prepare}\n",
		})
		for _, backend := range backendNames {
			out, stderr, code := compileArgs(t, "mlcube-compile", "--backend", backend, "--mlcube", specs, "--task", filepath.Join(specs, "pipeline.yaml"))
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			name := runConfigMap(t, backend, out).Name
			if prev, ok := names[configs]; ok && prev != name {
				t.Errorf("%s: %s named %s, and %s on another backend", configs, backend, name, prev)
			}
			names[configs] = name
		}
	}
	if names["{MODE: fast, LEVEL: 3}"] != names["{LEVEL: 3, MODE: fast}"] {
		t.Errorf("the same configs in another order got another name: %v", names)
	}
	if len(map[string]bool{names["{MODE: fast, LEVEL: 3}"]: true, names["{MODE: slow, LEVEL: 3}"]: true, names["{MODE: fast, LEVEL: 3, X: y}"]: true}) != 3 {
		t.Errorf("edited configs kept their ConfigMap's name: %v", names)
	}
}

func TestStepEnvWinsOverConfigs(t *testing.T) {
	specs := writeFiles(t, map[string]string{
		"mlcube.yaml": goodCube,
		"pipeline.yaml": `configs: {MODE: fast, LEVEL: 3}
steps:
  prepare: {task: prepare}
  train: {task: train, env: {MODE: slow}}
`,
	})
	out, stderr, code := compileArgs(t, "mlcube-compile", "--mlcube", specs, "--task", filepath.Join(specs, "pipeline.yaml"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	cm := runConfigMap(t, "argo", out).Name
	wf := validateWorkflow(t, "configs", out)
	for _, tmpl := range wf.Spec.Templates[1:] {
		if tmpl.Container == nil {
			continue
		}
		got := configEnv(tmpl.Container.Env)
		want := map[string]string{"LEVEL": cm + "/LEVEL", "MODE": cm + "/MODE"}
		if tmpl.Name == "train" {
			want = map[string]string{"LEVEL": cm + "/LEVEL"}
			if e := tmpl.Container.Env; len(e) != 2 || e[1].Name != "MODE" || e[1].Value != "slow" {
				t.Errorf("train env %v, want MODE=slow from the step", e)
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: env from the ConfigMap (-want +got):\n%s", tmpl.Name, diff)
		}
	}
}
