# Pinned versions for the e2e cluster; sourced by build.sh, up.sh and down.sh.
# Each binary is cached under $E2E_CACHE/<name>-<version>/, so changing a
# version here rebuilds only that binary.
KUBERNETES_VERSION=v1.35.4
KUBE_STAGING_VERSION=v0.35.4
ETCD_VERSION=v3.6.5
KWOK_VERSION=v0.8.0
ARGO_VERSION=v3.7.15
TEKTON_VERSION=v1.13.0
MPI_OPERATOR_VERSION=v0.8.0
# Only its kubeflow.org/v1 MPIJob CRD, served beside mpi-operator's v2beta1.
TRAINING_OPERATOR_VERSION=v1.9.2

E2E_ROOT=${E2E_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/.e2e}
E2E_CACHE=$E2E_ROOT/cache
E2E_BIN=$E2E_ROOT/bin
E2E_RUN=$E2E_ROOT/run
