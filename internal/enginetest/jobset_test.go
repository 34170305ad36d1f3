package enginetest

import (
	"encoding/json"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// daskJobSetYAML is a JobSet of the shape proposed for a Dask step of two
// workers, its pods cut to a container each.
const daskJobSetYAML = `
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {generateName: deepecho-benchmark-fixed-, namespace: benchmarks}
spec:
  suspend: true
  network: {enableDNSHostnames: true, publishNotReadyAddresses: true}
  successPolicy: {operator: Any, targetReplicatedJobs: [client]}
  replicatedJobs:
  - name: scheduler
    template:
      spec:
        completionMode: Indexed
        parallelism: 1
        completions: 1
        backoffLimit: 0
        template:
          spec:
            restartPolicy: Never
            containers: [{name: scheduler, image: mlcube-e2e/dask:1}]
  - name: worker
    replicas: 1
    dependsOn: [{name: scheduler, status: Ready}]
    template:
      spec:
        completionMode: Indexed
        parallelism: 2
        completions: 2
        template:
          spec:
            restartPolicy: Never
            containers: [{name: worker, image: mlcube-e2e/dask:1}]
  - name: client
    replicas: 1
    dependsOn: [{name: worker, status: Ready}]
    template:
      spec:
        template:
          spec:
            restartPolicy: Never
            containers: [{name: client, image: mlcube-e2e/dask:1}]
`

// The JobSet check passes a valid JobSet, and finds what the API server
// would refuse before JobSet's webhooks run: an unknown field
// (CheckSchema), a value the schema's enum does not allow, and a CEL
// rule of the CRD broken. Each case is valid but for its change.
func TestJobSetCheck(t *testing.T) {
	valid := func() map[string]any {
		var m map[string]any
		if err := yaml.Unmarshal([]byte(daskJobSetYAML), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	if js := JobSet(t, valid()); len(js.Spec.ReplicatedJobs) != 3 || js.Spec.ReplicatedJobs[0].Replicas != 0 {
		t.Errorf("JobSet returns the JobSet as decoded, without defaults: %+v", js.Spec.ReplicatedJobs)
	}
	spec := func(m map[string]any) map[string]any { return m["spec"].(map[string]any) }
	for name, tc := range map[string]struct {
		change func(map[string]any)
		want   string
	}{
		"unknown field": {func(m map[string]any) { spec(m)["startupOrder"] = "InOrder" },
			"JobSet.spec.startupOrder: unknown field"},
		"operator not in the enum": {func(m map[string]any) {
			spec(m)["successPolicy"].(map[string]any)["operator"] = "Some"
		}, `spec.successPolicy.operator: Unsupported value: "Some"`},
		"InOrder with dependsOn": {func(m map[string]any) {
			spec(m)["startupPolicy"] = map[string]any{"startupPolicyOrder": "InOrder"}
		}, "StartupPolicy and DependsOn APIs are mutually exclusive"},
	} {
		m := valid()
		tc.change(m)
		raw, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if errs := strings.Join(jobSetCRD(t).errors(m, raw), "\n"); !strings.Contains(errs, tc.want) {
			t.Errorf("%s: the JobSet check missed %q; it said:\n%s", name, tc.want, errs)
		}
	}
}
