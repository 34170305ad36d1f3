package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// dagEdges reads each step's dependencies back out of an Argo Workflow
// or a Tekton PipelineRun.
func dagEdges(t *testing.T, backend, out string) map[string][]string {
	t.Helper()
	edges := map[string][]string{}
	switch backend {
	case "argo":
		wf := validateWorkflow(t, backend, out)
		for _, task := range wf.Spec.Templates[0].DAG.Tasks {
			edges[task.Name] = append([]string{}, task.Dependencies...)
		}
	case "tekton":
		pr := validatePipelineRun(t, backend, out)
		for _, task := range pr.Spec.PipelineSpec.Tasks {
			edges[task.Name] = append([]string{}, task.RunAfter...)
		}
	default:
		t.Fatalf("no DAG on %s", backend)
	}
	for k := range edges {
		sort.Strings(edges[k])
	}
	return edges
}

// medperfEdges is the DAG of examples/medperf-style: path flow from
// prepared/ and predictions/, the after: on infer, and prepare -> evaluate
// (the labels) dropped because prepare -> sanity-check -> infer -> evaluate
// implies it.
var medperfEdges = map[string][]string{
	"prepare":      {},
	"sanity-check": {"prepare"},
	"statistics":   {"prepare"},
	"infer":        {"sanity-check"},
	"evaluate":     {"infer"},
}

func TestMedperfStyleEdges(t *testing.T) {
	for _, backend := range []string{"argo", "tekton"} {
		t.Run(backend, func(t *testing.T) {
			got := dagEdges(t, backend, compileExample(t, backend, "medperf-style"))
			if !reflect.DeepEqual(got, medperfEdges) {
				t.Fatalf("edges %v, want %v", got, medperfEdges)
			}
		})
	}
	t.Run("job refuses three cubes", func(t *testing.T) {
		dir := filepath.Join(repoRoot, "examples", "medperf-style")
		_, stderr, code := compileArgs(t, append([]string{"mlcube-compile", "--backend", "job"}, exampleArgs(dir)...)...)
		if code != exitBadSpec || !notForBackend(stderr) {
			t.Fatalf("exit %d: %s", code, stderr)
		}
	})
}

func TestGraphMermaidMatchesDAG(t *testing.T) {
	args := []string{"mlcube-compile", "graph", "--task", filepath.Join(repoRoot, "examples", "medperf-style", "pipeline.yaml")}
	out, stderr, code := compileArgs(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := `---
title: medperf-chestxray
---
flowchart TD
  step_prepare["prepare<br/>chestxray-prep: prepare"]
  step_sanity_check["sanity-check<br/>chestxray-prep: sanity_check"]
  step_infer["infer<br/>chestxray-model: infer"]
  step_evaluate["evaluate<br/>chestxray-metrics: evaluate"]
  step_statistics["statistics<br/>chestxray-prep: statistics"]
  step_prepare --> step_sanity_check
  step_sanity_check --> step_infer
  step_infer --> step_evaluate
  step_prepare --> step_statistics
`
	if out != want {
		t.Errorf("graph:\n%s\nwant:\n%s", out, want)
	}
	// The arrows are the compiled Workflow's dependencies, no more, no less.
	got := map[string][]string{}
	for _, line := range strings.Split(out, "\n") {
		if from, to, ok := strings.Cut(strings.TrimSpace(line), " --> "); ok {
			name := func(id string) string { return strings.ReplaceAll(strings.TrimPrefix(id, "step_"), "_", "-") }
			got[name(to)] = append(got[name(to)], name(from))
		}
		if id, _, ok := strings.Cut(strings.TrimSpace(line), "[\""); ok {
			name := strings.ReplaceAll(strings.TrimPrefix(id, "step_"), "_", "-")
			got[name] = append([]string{}, got[name]...)
		}
	}
	if !reflect.DeepEqual(got, medperfEdges) {
		t.Errorf("Mermaid edges %v, want the DAG's %v", got, medperfEdges)
	}

	dot, stderr, code := compileArgs(t, append(args, "--format", "dot")...)
	if code != 0 || !strings.Contains(dot, `"sanity-check" -> "infer";`) || strings.Count(dot, " -> ") != 4 {
		t.Errorf("dot: exit %d: %s\n%s", code, stderr, dot)
	}
	if _, stderr, code := compileArgs(t, append(args, "--format", "png")...); code != exitUsage {
		t.Errorf("--format png: exit %d, want %d: %s", code, exitUsage, stderr)
	}
}

// paramDefaults reads the params' values back out of an Argo Workflow or
// a Tekton PipelineRun.
func paramDefaults(t *testing.T, backend, out string) map[string]string {
	t.Helper()
	got := map[string]string{}
	switch backend {
	case "argo":
		for _, p := range validateWorkflow(t, backend, out).Spec.Arguments.Parameters {
			if p.Value != nil {
				got[p.Name] = p.Value.String()
			}
		}
	case "tekton":
		for _, p := range validatePipelineRun(t, backend, out).Spec.PipelineSpec.Params {
			if p.Default != nil {
				got[p.Name] = p.Default.StringVal
			}
		}
	}
	return got
}

func TestValuesAndSetChangeDefaults(t *testing.T) {
	dir := filepath.Join(repoRoot, "examples", "two-cube-pipeline")
	values := writeFiles(t, map[string]string{
		"a.yaml": "epochs: 20\ndataset: raw/a\n",
		"b.yaml": "# later files win\ndataset: raw/b\n",
	})
	for _, backend := range []string{"argo", "tekton"} {
		t.Run(backend, func(t *testing.T) {
			base := []string{"mlcube-compile", "--backend", backend, "--task", filepath.Join(dir, "pipeline.yaml")}
			out, stderr, code := compileArgs(t, base...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if got, want := paramDefaults(t, backend, out), map[string]string{"epochs": "10"}; !reflect.DeepEqual(got, want) {
				t.Errorf("without values: %v, want %v (dataset left for submit time)", got, want)
			}
			out, stderr, code = compileArgs(t, append(base, "-f", filepath.Join(values, "a.yaml"), "-f", filepath.Join(values, "b.yaml"), "--set", "epochs=90")...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if got, want := paramDefaults(t, backend, out), map[string]string{"epochs": "90", "dataset": "raw/b"}; !reflect.DeepEqual(got, want) {
				t.Errorf("with -f a -f b --set epochs=90: %v, want %v", got, want)
			}
		})
	}
	t.Run("job needs every value", func(t *testing.T) {
		specs := writeFiles(t, map[string]string{
			"mlcube.yaml":   goodCube,
			"pipeline.yaml": "params:\n  dataset: {required: true}\nsteps:\n  train: {task: train, args: [\"--data=${params.dataset}\"]}\n",
		})
		base := []string{"mlcube-compile", "--backend", "job", "--mlcube", specs, "--task", filepath.Join(specs, "pipeline.yaml")}
		out, stderr, code := compileArgs(t, base...)
		if code != exitBadSpec || out != "" || !strings.Contains(stderr, "pipeline.yaml:2:3: params.dataset: has no value, and a Job has no run-time parameters") {
			t.Fatalf("without a value: exit %d, stdout %d bytes: %s", code, len(out), stderr)
		}
		out, stderr, code = compileArgs(t, append(base, "--set", "dataset=raw/x y")...)
		if code != 0 {
			t.Fatalf("with --set: exit %d: %s", code, stderr)
		}
		args := validateJob(t, "job", out).Spec.Template.Spec.Containers[0].Args
		if args[len(args)-1] != "--data=raw/x y" {
			t.Errorf("args %q, want the --set value as it was given", args)
		}
	})
	t.Run("--set without =", func(t *testing.T) {
		if _, stderr, code := compileArgs(t, "mlcube-compile", "--task", filepath.Join(dir, "pipeline.yaml"), "--set", "epochs"); code != exitUsage {
			t.Errorf("exit %d, want %d: %s", code, exitUsage, stderr)
		}
	})
}

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
			if got := configEnv(env); !reflect.DeepEqual(got, wantEnv) {
				t.Errorf("env from the ConfigMap %v, want %v", got, wantEnv)
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
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: env from the ConfigMap %v, want %v", tmpl.Name, got, want)
		}
	}
}

// countdownContainer finds the countdown container in any backend's output.
func countdownContainer(t *testing.T, backend, out string) (command, args []string) {
	t.Helper()
	switch backend {
	case "argo":
		c := validateWorkflow(t, backend, out).Spec.Templates[1].Container
		return c.Command, c.Args
	case "tekton":
		s := validatePipelineRun(t, backend, out).Spec.PipelineSpec.Tasks[0].TaskSpec.Steps[0]
		return s.Command, s.Args
	}
	c := validateJob(t, backend, out).Spec.Template.Spec.Containers[0]
	return c.Command, c.Args
}

// TestCountdownNumberIsItsOwnArgument checks that the number reaches bash
// as "$1", never as part of the script: the script is the same whatever
// the number, and a hostile number runs nothing when the script does run.
func TestCountdownNumberIsItsOwnArgument(t *testing.T) {
	dir := filepath.Join(repoRoot, "examples", "countdown")
	refs := map[string]string{"argo": "{{workflow.parameters.number}}", "tekton": "$(params.number)", "job": "10"}
	var script string
	for _, backend := range backendNames {
		command, args := countdownContainer(t, backend, compileExample(t, backend, "countdown"))
		if len(command) != 4 || command[0] != "bash" || command[1] != "-c" || len(args) != 1 || args[0] != refs[backend] {
			t.Fatalf("%s: command %q args %q, want bash -c SCRIPT countdown with the number alone in args", backend, command, args)
		}
		if script != "" && command[2] != script {
			t.Errorf("%s: the script differs between backends", backend)
		}
		script = command[2]
	}
	hostile := "3; touch pwned"
	out, stderr, code := compileArgs(t, append([]string{"mlcube-compile", "--backend", "job", "--set", "number=" + hostile}, exampleArgs(dir)...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	command, args := countdownContainer(t, "job", out)
	if command[2] != script || args[0] != hostile {
		t.Fatalf("with a hostile number: command %q args %q", command, args)
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash to run the script with")
	}
	work := t.TempDir()
	for number, want := range map[string]string{"3": "3\n2\n1\n", hostile: ""} {
		cmd := exec.Command(bash, append(command[1:], number)...)
		cmd.Dir = work
		got, _ := cmd.Output()
		if string(got) != want {
			t.Errorf("number %q: printed %q, want %q", number, got, want)
		}
	}
	if _, err := os.Stat(filepath.Join(work, "pwned")); err == nil {
		t.Errorf("the hostile number ran as shell code")
	}
}

func TestArgoKinds(t *testing.T) {
	dir := filepath.Join(repoRoot, "examples", "medperf-style")
	base := append([]string{"mlcube-compile"}, exampleArgs(dir)...)

	out, stderr, code := compileArgs(t, append(base, "--kind", "workflowtemplate")...)
	if code != 0 {
		t.Fatalf("workflowtemplate: exit %d: %s", code, stderr)
	}
	validators["argo"](t, "workflowtemplate", out)
	var tmpl wfv1.WorkflowTemplate
	if err := yaml.Unmarshal([]byte(out), &tmpl); err != nil || tmpl.Kind != "WorkflowTemplate" || tmpl.Name != "medperf-chestxray" || tmpl.Namespace != "medperf" {
		t.Fatalf("want WorkflowTemplate medperf/medperf-chestxray, got %s %s/%s (%v)", tmpl.Kind, tmpl.Namespace, tmpl.Name, err)
	}
	if len(tmpl.Spec.Arguments.Parameters) != 1 || tmpl.Spec.WorkflowMetadata.Labels["app.kubernetes.io/name"] != "medperf-chestxray" {
		t.Errorf("the template should keep the params and label its runs: %+v", tmpl.Spec.Arguments)
	}

	out, stderr, code = compileArgs(t, append(base, "--kind", "cronworkflow", "--schedule", "0 2 * * 1-5", "--schedule", "30 6 1,15 * *", "--timezone", "Europe/Berlin", "--concurrency-policy", "Forbid")...)
	if code != 0 {
		t.Fatalf("cronworkflow: exit %d: %s", code, stderr)
	}
	validators["argo"](t, "cronworkflow", out)
	var cron wfv1.CronWorkflow
	if err := yaml.Unmarshal([]byte(out), &cron); err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(cron.Kind, cron.Name, cron.Spec.Schedules, cron.Spec.Timezone, cron.Spec.ConcurrencyPolicy)
	if want := fmt.Sprint("CronWorkflow", "medperf-chestxray", []string{"0 2 * * 1-5", "30 6 1,15 * *"}, "Europe/Berlin", "Forbid"); got != want {
		t.Errorf("got %s, want %s", got, want)
	}

	t.Run("schedule from the pipeline file, long name", func(t *testing.T) {
		long := strings.Repeat("nightly-", 8) + "training"
		specs := writeFiles(t, map[string]string{
			"mlcube.yaml":   goodCube,
			"pipeline.yaml": "name: " + long + "\nschedule: {cron: '@daily', timezone: UTC, concurrencyPolicy: Replace, startingDeadlineSeconds: 600}\nsteps:\n  train: {task: train}\n",
		})
		out, stderr, code := compileArgs(t, "mlcube-compile", "--kind", "cronworkflow", "--mlcube", specs, "--task", filepath.Join(specs, "pipeline.yaml"))
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		validators["argo"](t, "cron", out)
		var cron wfv1.CronWorkflow
		if err := yaml.Unmarshal([]byte(out), &cron); err != nil {
			t.Fatal(err)
		}
		if len(cron.Name) > 52 || !strings.HasPrefix(long, cron.Name) || *cron.Spec.StartingDeadlineSeconds != 600 || cron.Spec.Schedules[0] != "@daily" {
			t.Errorf("name %q (%d characters, at most 52), spec %+v", cron.Name, len(cron.Name), cron.Spec)
		}
		if !strings.Contains(stderr, "pipeline.yaml:1:1: warning: name: ") || !strings.Contains(stderr, "is cut to") {
			t.Errorf("a shortened name should be a warning, stderr: %q", stderr)
		}
		out, stderr, _ = compileArgs(t, "mlcube-compile", "--mlcube", specs, "--task", filepath.Join(specs, "pipeline.yaml"))
		if !strings.Contains(out, "kind: Workflow\n") || !strings.Contains(stderr, "schedule: is used only with --backend argo --kind cronworkflow") {
			t.Errorf("without --kind: want a Workflow and a warning, stderr: %s", stderr)
		}
	})

	for _, bad := range [][]string{
		{"--backend", "tekton", "--kind", "workflowtemplate"},
		{"--kind", "cron"},
		{"--schedule", "@daily"},
		{"--kind", "workflowtemplate", "--timezone", "UTC"},
	} {
		if out, stderr, code := compileArgs(t, append(base, bad...)...); code != exitUsage || out != "" {
			t.Errorf("%q: exit %d, want %d: %s", bad, code, exitUsage, stderr)
		}
	}
}
