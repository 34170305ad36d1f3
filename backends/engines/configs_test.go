package engines_test

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"testing"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	"github.com/google/go-cmp/cmp"
	tektonv1 "github.com/tektoncd/pipeline/pkg/apis/pipeline/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/compiler"
	"github.com/mlcube-compile/mlcube-compile/internal/enginetest"
	"github.com/mlcube-compile/mlcube-compile/internal/manifestcheck"
)

// Configs: the pipeline's configs: become a ConfigMap that every backend
// creates and its steps read as env.

func TestSingleGPUTaskConfigs(t *testing.T) {
	for _, backend := range backendNames() {
		t.Run(backend, func(t *testing.T) {
			out := manifestcheck.Example(t, backend, "single-gpu-task")
			cm := enginetest.ConfigMap(t, out)
			if !regexp.MustCompile(`^mnist-softmax-gpu-[a-z0-9]{10}$`).MatchString(cm.Name) || cm.Namespace != "ml-team" ||
				len(cm.Data) != 3 {
				t.Errorf("ConfigMap %s/%s with %d keys, want ml-team/mnist-softmax-gpu-HASH with 3", cm.Namespace,
					cm.Name, len(cm.Data))
			}
			wantEnv := map[string]string{
				"GLOBALCFG":  cm.Name + "/GLOBALCFG",
				"DATASETCFG": cm.Name + "/DATASETCFG",
				"PROCESSCFG": cm.Name + "/PROCESSCFG",
			}
			var process map[string]map[string]int
			if err := json.Unmarshal([]byte(cm.Data["PROCESSCFG"]), &process); err != nil ||
				process["eval"]["batchSize"] != 100 || process["export"]["modelVersion"] != 1 {
				t.Errorf("PROCESSCFG %q, want the mapping as JSON (%v)", cm.Data["PROCESSCFG"], err)
			}
			var env []corev1.EnvVar
			switch run := out.Run.(type) {
			case *wfv1.Workflow:
				env = run.GetTemplateByName("train").Container.Env
			case *tektonv1.PipelineRun:
				steps := run.Spec.PipelineSpec.Tasks[0].TaskSpec.Steps
				env = steps[len(steps)-1].Env // after the step that makes its folders
			case *batchv1.Job:
				env = run.Spec.Template.Spec.Containers[0].Env
			default:
				t.Fatalf("a run of %T", out.Run)
			}
			if diff := cmp.Diff(wantEnv, enginetest.ConfigEnv(env)); diff != "" {
				t.Errorf("env from the ConfigMap (-want +got):\n%s", diff)
			}
		})
	}
}

// A ConfigMap's name follows its content: a run with edited configs reads
// a new ConfigMap, never the one an earlier run left.
func TestConfigMapNameFollowsContent(t *testing.T) {
	names := map[string]string{}
	for _, configs := range []string{"{MODE: fast, LEVEL: 3}", "{LEVEL: 3, MODE: fast}", "{MODE: slow, LEVEL: 3}",
		"{MODE: fast, LEVEL: 3, X: y}"} {
		dir := enginetest.WriteFiles(t, map[string]string{
			"mlcube.yaml":   enginetest.DemoCube,
			"pipeline.yaml": "configs: " + configs + "\nsteps:\n  prepare: {task: prepare}\n",
		})
		for _, backend := range backendNames() {
			out := manifestcheck.BuildFor(t, backend, compiler.Options{MLCube: dir, Task: filepath.Join(dir, "pipeline.yaml")},
				emit.Options{}).Must(t)
			name := enginetest.ConfigMap(t, out).Name
			if prev, ok := names[configs]; ok && prev != name {
				t.Errorf("%s: %s named %s, and %s on another backend", configs, backend, name, prev)
			}
			names[configs] = name
		}
	}
	if names["{MODE: fast, LEVEL: 3}"] != names["{LEVEL: 3, MODE: fast}"] {
		t.Errorf("the same configs in another order got another name: %v", names)
	}
	if len(map[string]bool{names["{MODE: fast, LEVEL: 3}"]: true, names["{MODE: slow, LEVEL: 3}"]: true,
		names["{MODE: fast, LEVEL: 3, X: y}"]: true}) != 3 {
		t.Errorf("edited configs kept their ConfigMap's name: %v", names)
	}
}
