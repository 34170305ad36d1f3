package distributed

import (
	"encoding/json"

	kubeflow "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
)

// toV1 rewrites a v2beta1 MPIJob as the training operator's
// kubeflow.org/v1 MPIJob, whose spec has the same fields but for the
// launcher creation policy and runLauncherAsWorker, which are v2 only and
// which mlcube-compile leaves unset. The v2beta1 job has passed
// mpi-operator's validation first.
func toV1(job *kubeflow.MPIJob) (map[string]any, error) {
	raw, err := json.Marshal(job)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	m["apiVersion"] = mpiV1
	if spec, ok := m["spec"].(map[string]any); ok {
		delete(spec, "launcherCreationPolicy")
		delete(spec, "runLauncherAsWorker")
	}
	return m, nil
}
