package enginetest

import (
	"strings"
	"testing"

	"github.com/mlcube-compile/mlcube-compile/backends/argo"
	"github.com/mlcube-compile/mlcube-compile/backends/emit"
)

// The CRD check finds a required field left out and a field the CRD does
// not have, in the DaskJob that Argo creates for examples/dask-benchmark.
func TestCRDCheckCatchesMistakes(t *testing.T) {
	res, err := argo.Engine{}.Emit(Pipelines(t)["dask-benchmark"], emit.Options{})
	if err != nil || res.Err() != nil {
		t.Fatal(err, res.Err())
	}
	job := Jobs(t, res.Run)[0]
	spec := job["spec"].(map[string]any)
	delete(spec["cluster"].(map[string]any)["spec"].(map[string]any)["scheduler"].(map[string]any), "service")
	spec["job"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["bogus"] = true
	errs := strings.Join(CheckSchema(CRDSchema(t, "daskjob"), map[string]any{"spec": spec}, "DaskJob"), "\n")
	for _, want := range []string{"scheduler.service: required", "containers[0].bogus: unknown field"} {
		if !strings.Contains(errs, want) {
			t.Errorf("the CRD check missed %q; it said:\n%s", want, errs)
		}
	}
}
