package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	"github.com/google/go-cmp/cmp"
	"github.com/mlcube-compile/mlcube-compile/internal/enginetest"
	"github.com/mlcube-compile/mlcube-compile/internal/manifestcheck"
	"sigs.k8s.io/yaml"
)

// dagEdges reads each step's dependencies back out of an Argo Workflow
// or a Tekton PipelineRun.
func dagEdges(t *testing.T, backend, out string) map[string][]string {
	t.Helper()
	edges := map[string][]string{}
	switch backend {
	case "argo":
		wf := manifestcheck.ValidateWorkflow(t, backend, out)
		for _, task := range wf.Spec.Templates[0].DAG.Tasks {
			edges[task.Name] = append([]string{}, task.Dependencies...)
		}
	case "tekton":
		pr := manifestcheck.ValidatePipelineRun(t, backend, out)
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
			if diff := cmp.Diff(medperfEdges, got); diff != "" {
				t.Fatalf("edges (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("job refuses three cubes", func(t *testing.T) {
		dir := filepath.Join(repoRoot, "examples", "medperf-style")
		_, stderr, code := compileArgs(t, append([]string{"mlcube-compile", "--backend", "job"}, exampleArgs(dir)...)...)
		if code != exitBadSpec || notForBackend(t, "job", "", manifestcheck.Specs(dir)) == nil {
			t.Fatalf("exit %d: %s", code, stderr)
		}
	})
}

func TestGraphMermaidMatchesDAG(t *testing.T) {
	args := []string{"mlcube-compile", "graph", "--task",
		filepath.Join(repoRoot, "examples", "medperf-style", "pipeline.yaml")}
	out, stderr, code := compileArgs(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := `---
title: medperf-style
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
	if diff := cmp.Diff(medperfEdges, got); diff != "" {
		t.Errorf("Mermaid edges (-the DAG's +got):\n%s", diff)
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
		for _, p := range manifestcheck.ValidateWorkflow(t, backend, out).Spec.Arguments.Parameters {
			if p.Value != nil {
				got[p.Name] = p.Value.String()
			}
		}
	case "tekton":
		for _, p := range manifestcheck.ValidatePipelineRun(t, backend, out).Spec.PipelineSpec.Params {
			if p.Default != nil {
				got[p.Name] = p.Default.StringVal
			}
		}
	}
	return got
}

func TestValuesAndSetChangeDefaults(t *testing.T) {
	dir := filepath.Join(repoRoot, "examples", "two-cube-pipeline")
	values := enginetest.WriteFiles(t, map[string]string{
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
			if diff := cmp.Diff(map[string]string{"epochs": "10"}, paramDefaults(t, backend, out)); diff != "" {
				t.Errorf("without values (dataset left for submit time), defaults (-want +got):\n%s", diff)
			}
			out, stderr, code = compileArgs(t,
				append(base, "-f", filepath.Join(values, "a.yaml"), "-f", filepath.Join(values, "b.yaml"), "--set", "epochs=90")...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if diff := cmp.Diff(map[string]string{"epochs": "90", "dataset": "raw/b"},
				paramDefaults(t, backend, out)); diff != "" {
				t.Errorf("with -f a -f b --set epochs=90, defaults (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("job needs every value", func(t *testing.T) {
		specs := enginetest.WriteFiles(t, map[string]string{
			"mlcube.yaml": enginetest.DemoCube,
			"pipeline.yaml": "params:\n  dataset: {required: true}\nsteps:\n" +
				"  train: {task: train, args: [\"--data=${params.dataset}\"]}\n",
		})
		base := []string{"mlcube-compile", "--backend", "job", "--mlcube", specs, "--task",
			filepath.Join(specs, "pipeline.yaml")}
		out, stderr, code := compileArgs(t, base...)
		if code != exitBadSpec || out != "" || !strings.Contains(stderr,
			"pipeline.yaml:2:3: params.dataset: has no value, and a Job has no run-time parameters") {
			t.Fatalf("without a value: exit %d, stdout %d bytes: %s", code, len(out), stderr)
		}
		out, stderr, code = compileArgs(t, append(base, "--set", "dataset=raw/x y")...)
		if code != 0 {
			t.Fatalf("with --set: exit %d: %s", code, stderr)
		}
		args := manifestcheck.ValidateJob(t, "job", out).Spec.Template.Spec.Containers[0].Args
		if args[len(args)-1] != "--data=raw/x y" {
			t.Errorf("args %q, want the --set value as it was given", args)
		}
	})
	t.Run("--set without =", func(t *testing.T) {
		if _, stderr, code := compileArgs(t, "mlcube-compile", "--task", filepath.Join(dir, "pipeline.yaml"), "--set",
			"epochs"); code != exitUsage {
			t.Errorf("exit %d, want %d: %s", code, exitUsage, stderr)
		}
	})
}

// countdownContainer finds the countdown container in any backend's output.
func countdownContainer(t *testing.T, backend, out string) (command, args []string) {
	t.Helper()
	switch backend {
	case "argo":
		c := manifestcheck.ValidateWorkflow(t, backend, out).Spec.Templates[1].Container
		return c.Command, c.Args
	case "tekton":
		s := manifestcheck.ValidatePipelineRun(t, backend, out).Spec.PipelineSpec.Tasks[0].TaskSpec.Steps[0]
		return s.Command, s.Args
	}
	c := manifestcheck.ValidateJob(t, backend, out).Spec.Template.Spec.Containers[0]
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
			t.Fatalf("%s: command %q args %q, want bash -c SCRIPT countdown with the number alone in args",
				backend, command, args)
		}
		if script != "" && command[2] != script {
			t.Errorf("%s: the script differs between backends", backend)
		}
		script = command[2]
	}
	hostile := "3; touch pwned"
	out, stderr, code := compileArgs(t,
		append([]string{"mlcube-compile", "--backend", "job", "--set", "number=" + hostile}, exampleArgs(dir)...)...)
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
	if err := yaml.Unmarshal([]byte(out), &tmpl); err != nil || tmpl.Kind != "WorkflowTemplate" ||
		tmpl.Name != "medperf-style" || tmpl.Namespace != "medperf" {
		t.Fatalf("want WorkflowTemplate medperf/medperf-style, got %s %s/%s (%v)", tmpl.Kind, tmpl.Namespace, tmpl.Name, err)
	}
	if len(tmpl.Spec.Arguments.Parameters) != 1 ||
		tmpl.Spec.WorkflowMetadata.Labels["app.kubernetes.io/name"] != "medperf-style" {
		t.Errorf("the template should keep the params and label its runs: %+v", tmpl.Spec.Arguments)
	}

	out, stderr, code = compileArgs(t, append(base, "--kind", "cronworkflow", "--schedule", "0 2 * * 1-5", "--schedule",
		"30 6 1,15 * *", "--timezone", "Europe/Berlin", "--concurrency-policy", "Forbid")...)
	if code != 0 {
		t.Fatalf("cronworkflow: exit %d: %s", code, stderr)
	}
	validators["argo"](t, "cronworkflow", out)
	var cron wfv1.CronWorkflow
	if err := yaml.Unmarshal([]byte(out), &cron); err != nil {
		t.Fatal(err)
	}
	type cronFacts struct {
		Kind, Name        string
		Schedules         []string
		Timezone          string
		ConcurrencyPolicy wfv1.ConcurrencyPolicy
	}
	got := cronFacts{cron.Kind, cron.Name, cron.Spec.Schedules, cron.Spec.Timezone, cron.Spec.ConcurrencyPolicy}
	want := cronFacts{"CronWorkflow", "medperf-style", []string{"0 2 * * 1-5", "30 6 1,15 * *"}, "Europe/Berlin",
		wfv1.ForbidConcurrent}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CronWorkflow (-want +got):\n%s", diff)
	}

	t.Run("schedule from the pipeline file, long name", cronFromPipelineFile)

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

// cronFromPipelineFile compiles a pipeline whose schedule: and long name
// are in the file: a CronWorkflow with --kind cronworkflow, its name cut
// with a warning; a Workflow and a warning without.
func cronFromPipelineFile(t *testing.T) {
	long := strings.Repeat("nightly-", 8) + "training"
	specs := enginetest.WriteFiles(t, map[string]string{
		"mlcube.yaml": enginetest.DemoCube,
		"pipeline.yaml": "name: " + long + "\nschedule: {cron: '@daily', timezone: UTC, concurrencyPolicy: Replace, " +
			"startingDeadlineSeconds: 600}\nsteps:\n  train: {task: train}\n",
	})
	out, stderr, code := compileArgs(t, "mlcube-compile", "--kind", "cronworkflow", "--mlcube", specs, "--task",
		filepath.Join(specs, "pipeline.yaml"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	validators["argo"](t, "cron", out)
	var cron wfv1.CronWorkflow
	if err := yaml.Unmarshal([]byte(out), &cron); err != nil {
		t.Fatal(err)
	}
	if len(cron.Name) > 52 || !strings.HasPrefix(long, cron.Name) || *cron.Spec.StartingDeadlineSeconds != 600 ||
		cron.Spec.Schedules[0] != "@daily" {
		t.Errorf("name %q (%d characters, at most 52), spec %+v", cron.Name, len(cron.Name), cron.Spec)
	}
	if !strings.Contains(stderr, "pipeline.yaml:1:1: warning: name: ") || !strings.Contains(stderr, "is cut to") {
		t.Errorf("a shortened name should be a warning, stderr: %q", stderr)
	}
	out, stderr, _ = compileArgs(t, "mlcube-compile", "--mlcube", specs, "--task", filepath.Join(specs, "pipeline.yaml"))
	if !strings.Contains(out, "kind: Workflow\n") || !strings.Contains(stderr,
		"schedule: is used only with --backend argo --kind cronworkflow") {
		t.Errorf("without --kind: want a Workflow and a warning, stderr: %s", stderr)
	}
}
