package argo_test

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/compiler"
	"github.com/mlcube-compile/mlcube-compile/internal/enginetest"
)

// A step's own env wins over the pipeline's configs of the same name,
// which its container then does not read from the ConfigMap.
func TestStepEnvWinsOverConfigs(t *testing.T) {
	dir := enginetest.WriteFiles(t, map[string]string{
		"mlcube.yaml": enginetest.DemoCube,
		"pipeline.yaml": `configs: {MODE: fast, LEVEL: 3}
steps:
  prepare: {task: prepare}
  train: {task: train, env: {MODE: slow}}
`,
	})
	out := build(t, compiler.Options{MLCube: dir, Task: filepath.Join(dir, "pipeline.yaml")}, emit.Options{})
	wf := workflow(t, out)
	cm := enginetest.ConfigMap(t, out).Name
	for _, tmpl := range wf.Spec.Templates[1:] {
		if tmpl.Container == nil {
			continue
		}
		got := enginetest.ConfigEnv(tmpl.Container.Env)
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
