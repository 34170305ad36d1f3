package argo_test

import (
	"os"
	"testing"

	"github.com/mlcube-compile/mlcube-compile/backends/argo"
	"github.com/mlcube-compile/mlcube-compile/backends/argo/argotest"
)

// checkV4CRD checks every Argo document of manifest against the schema
// of Argo v4's full CRD of its kind: the caps, patterns and enums a v4
// cluster's API server applies on create.
func checkV4CRD(t *testing.T, name, manifest string) {
	t.Helper()
	docs, kinds, err := argotest.Documents(manifest)
	if err != nil {
		t.Fatal(err)
	}
	for i, doc := range docs {
		if err := argo.LoadV4CRD(t, kinds[i]).Validate(doc); err != nil {
			t.Errorf("%s: Argo v4's %s CRD refuses it: %v", name, kinds[i], err)
		}
	}
}

// Every Argo golden file, and every example as each kind, fits Argo v4's
// full CRDs.
func TestFitsArgoV4CRDs(t *testing.T) {
	skipCRDShort(t)
	for _, f := range goldenFiles(t) {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		checkV4CRD(t, f, string(raw))
	}
	emitKinds(t, func(t *testing.T, kind, manifest string) {
		checkV4CRD(t, kind, manifest)
	})
}

// The CRD check refuses what v4's CRDs refuse: a schedule with a TZ=
// prefix, and a DAG over the cap; since v4.0.6 it takes a day's name.
func TestV4CRDCheckRefuses(t *testing.T) {
	skipCRDShort(t)
	cron := edit(t, emitted(t, argo.KindCronWorkflow), func(m map[string]any) {
		m["spec"].(map[string]any)["schedules"] = []any{"TZ=UTC 0 2 * * *"}
	})
	if err := argo.LoadV4CRD(t, "CronWorkflow").Validate(cron); err == nil {
		t.Errorf("the CronWorkflow CRD takes a schedule with a TZ= prefix")
	}
	names := edit(t, emitted(t, argo.KindCronWorkflow), func(m map[string]any) {
		m["spec"].(map[string]any)["schedules"] = []any{"0 2 * * MON-FRI", "0 0 1 JAN *"}
	})
	if err := argo.LoadV4CRD(t, "CronWorkflow").Validate(names); err != nil {
		t.Errorf("the CronWorkflow CRD refuses day and month names (v4.0.6 and later take them): %v", err)
	}
	wf := edit(t, emitted(t, argo.KindWorkflow), func(m map[string]any) {
		dag := m["spec"].(map[string]any)["templates"].([]any)[0].(map[string]any)["dag"].(map[string]any)
		tasks := dag["tasks"].([]any)
		for len(tasks) <= 200 {
			tasks = append(tasks, tasks[0])
		}
		dag["tasks"] = tasks
	})
	if err := argo.LoadV4CRD(t, "Workflow").Validate(wf); err == nil {
		t.Errorf("the Workflow CRD takes a DAG of 201 tasks")
	}
}

// skipCRDShort skips a test that reads Argo v4's full CRDs under -short.
func skipCRDShort(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped with -short: reads and compiles Argo v4's full CRDs (7 MB of schema)")
	}
}
