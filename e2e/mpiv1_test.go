//go:build e2e

package main

import (
	"encoding/json"
	"testing"
)

// TestE2EMPIJobV1DryRun creates the kubeflow.org/v1 MPIJob that each
// engine's step would create with --dry-run=server, against the training
// operator's own v1 CRD schema (scripts/e2e/up.sh serves it beside
// mpi-operator's v2beta1), so a v2-only field or a missing one fails.
func TestE2EMPIJobV1DryRun(t *testing.T) {
	c := e2eCluster(t)
	args, _ := v1MPIArgs(t)
	for _, backend := range []string{"argo", "tekton"} {
		job := v1MPIJob(t, args, backend)
		checkV1MPIJob(t, job)
		manifest, err := json.Marshal(job)
		if err != nil {
			t.Fatal(err)
		}
		c.dryRun(t, asSubmitted(string(manifest)))
		t.Logf("%s: kubeflow.org/v1 MPIJob accepted by the training operator's CRD", backend)
	}
}
