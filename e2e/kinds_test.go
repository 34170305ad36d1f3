//go:build e2e

package e2e

import (
	"path/filepath"
	"slices"
	"strings"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	corev1 "k8s.io/api/core/v1"
)

// medPerfNotRecorded says why a MedPerf example does not run on the real
// node yet: scripts/e2e/image/record finds a step's paths in its
// --name=path arguments, and a MedPerf container takes its volumes as
// mounts at fixed paths, some read-only, with no such arguments.
const medPerfNotRecorded = "not run here yet: a MedPerf container's volumes are mounts, not the --name=path " +
	"arguments scripts/e2e/image/record reads (TestE2EDryRunGoldens creates its objects with --dry-run=server)"

// medPerfExample says whether an example runs MedPerf containers.
func medPerfExample(name string) bool {
	found, _ := filepath.Glob(filepath.Join(repoRoot, "examples", name, "*", "container_config*.yaml"))
	return len(found) > 0
}

// distributedKinds lists the MPI, TrainJob and Dask (DaskJob, JobSet)
// kinds a workflow creates.
func distributedKinds(wf *wfv1.Workflow) []string {
	var kinds []string
	for _, tmpl := range wf.Spec.Templates {
		for _, k := range []string{"MPIJob", "DaskJob", "JobSet"} {
			if tmpl.Resource != nil && tmpl.Resource.Action == "create" && strings.Contains(tmpl.Resource.Manifest, "kind: "+k) {
				kinds = append(kinds, k)
			}
		}
		// A TrainJob is created by the wait script's container.
		if c := tmpl.Container; c != nil && slices.ContainsFunc(c.Env, func(e corev1.EnvVar) bool {
			return e.Name == "MANIFEST" && strings.Contains(e.Value, `"kind":"TrainJob"`)
		}) {
			kinds = append(kinds, "TrainJob")
		}
	}
	slices.Sort(kinds)
	return slices.Compact(kinds)
}
