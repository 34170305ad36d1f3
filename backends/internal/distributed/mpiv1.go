package distributed

import (
	"encoding/json"

	kubeflow "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
)

// toV1 writes a v2beta1 MPIJob, which has passed mpi-operator's
// validation, as the training operator's kubeflow.org/v1 MPIJob
// (github.com/kubeflow/training-operator, pkg/apis/kubeflow.org/v1/mpi_types.go,
// v1.9.2). Its spec has slotsPerWorker, runPolicy, mpiReplicaSpecs and
// mainContainer, and none of v2's SSH fields: the v1 controller
// (pkg/controller.v1/mpi/mpijob_controller.go) starts ranks through
// kubectl exec (kubexec.sh as OpenMPI's rsh agent, Hydra's bootstrap
// for Intel MPI), so workers run no SSH server; a worker container
// without a command gets "sleep 365d"; and a launcher without a service
// account gets one of the controller's own, "<job>-launcher", with the
// right to exec into the job's workers, so the launcher keeps its token.
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
	spec, _ := m["spec"].(map[string]any)
	for _, v2only := range []string{"sshAuthMountPath", "mpiImplementation", "launcherCreationPolicy",
		"runLauncherAsWorker"} {
		delete(spec, v2only)
	}
	spec["mainContainer"] = mpiContainer
	replicas, _ := spec["mpiReplicaSpecs"].(map[string]any)
	launcher, _ := replicas[string(kubeflow.MPIReplicaTypeLauncher)].(map[string]any)
	template, _ := launcher["template"].(map[string]any)
	pod, _ := template["spec"].(map[string]any)
	delete(pod, "automountServiceAccountToken")
	delete(pod, "serviceAccountName")
	return m, nil
}
